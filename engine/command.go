package engine

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// The Raft log carries commands in a compact binary form, written and read
// by hand (no reflection): an op byte, varints for the token, lease, time,
// lock-delay and request id, then the lock and client names, each after
// its length.
// A lock command is 20 to 40 bytes.

// EncodeCommand encodes a command for the Raft log. The buffer is new
// every time, of the command's exact size: the in-memory log keeps it,
// shared by every node, until compaction.
func EncodeCommand(c Command) []byte {
	n := 1 + varintLen(c.Token) + varintLen(c.Lease) + varintLen(c.Now) + varintLen(c.Delay) + uvarintLen(c.ReqID) +
		uvarintLen(uint64(len(c.Lock))) + len(c.Lock) + uvarintLen(uint64(len(c.Client))) + len(c.Client)
	b := make([]byte, 0, n)
	b = append(b, byte(c.Op))
	b = binary.AppendVarint(b, c.Token)
	b = binary.AppendVarint(b, c.Lease)
	b = binary.AppendVarint(b, c.Now)
	b = binary.AppendVarint(b, c.Delay)
	b = binary.AppendUvarint(b, c.ReqID)
	b = binary.AppendUvarint(b, uint64(len(c.Lock)))
	b = append(b, c.Lock...)
	b = binary.AppendUvarint(b, uint64(len(c.Client)))
	b = append(b, c.Client...)
	return b
}

// uvarintLen is the length of x as binary.AppendUvarint writes it.
func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// varintLen is the length of x as binary.AppendVarint writes it.
func varintLen(x int64) int { return uvarintLen(uint64(x)<<1 ^ uint64(x>>63)) }

var errBadCommand = errors.New("malformed lock command")

// DecodeCommand decodes EncodeCommand's output. It never modifies b, and
// the command's names are copies, not b's bytes.
func DecodeCommand(b []byte) (Command, error) {
	var c Command
	lock, client, err := decodeFields(b, &c)
	if err != nil {
		return Command{}, err
	}
	c.Lock, c.Client = string(lock), string(client)
	return c, nil
}

// decodeFields decodes a command into c but for its names, which it
// returns as slices of b: a state machine looks them up without copying
// them (LockFSM.applyEncoded).
func decodeFields(b []byte, c *Command) (lock, client []byte, err error) {
	if len(b) < 1 {
		return nil, nil, errBadCommand
	}
	c.Op, b = Op(b[0]), b[1:]
	for _, p := range [...]*int64{&c.Token, &c.Lease, &c.Now, &c.Delay} {
		v, n := binary.Varint(b)
		if n <= 0 {
			return nil, nil, errBadCommand
		}
		*p, b = v, b[n:]
	}
	id, n := binary.Uvarint(b)
	if n <= 0 {
		return nil, nil, errBadCommand
	}
	c.ReqID, b = id, b[n:]
	for _, p := range [...]*[]byte{&lock, &client} {
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			return nil, nil, errBadCommand
		}
		*p, b = b[n:n+int(l)], b[n+int(l):]
	}
	if len(b) != 0 {
		return nil, nil, errBadCommand
	}
	return lock, client, nil
}
