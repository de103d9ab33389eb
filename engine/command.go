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
	return appendCommand(make([]byte, 0, commandLen(c)), c)
}

// commandLen is the length of c encoded.
func commandLen(c Command) int {
	return 1 + varintLen(c.Token) + varintLen(c.Lease) + varintLen(c.Now) + varintLen(c.Delay) + uvarintLen(c.ReqID) +
		uvarintLen(uint64(len(c.Lock))) + len(c.Lock) + uvarintLen(uint64(len(c.Client))) + len(c.Client)
}

// appendCommand appends c, encoded, to b.
func appendCommand(b []byte, c Command) []byte {
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
// them (LockFSM.applyEncoded). It runs on every node for every command, so
// a one-byte varint (an op's zero time and lock-delay, a name's length) is
// read without a loop.
func decodeFields(b []byte, c *Command) (lock, client []byte, err error) {
	if len(b) < 1 {
		return nil, nil, errBadCommand
	}
	r := reader{b: b, i: 1}
	c.Op = Op(b[0])
	c.Token, c.Lease, c.Now, c.Delay = r.varint(), r.varint(), r.varint(), r.varint()
	c.ReqID = r.uvarint()
	lock, client = r.name(), r.name()
	if r.bad || r.i != len(b) {
		return nil, nil, errBadCommand
	}
	return lock, client, nil
}

// reader reads an encoded command's fields in turn; bad is set, and stays,
// once one was cut short or too long.
type reader struct {
	b   []byte
	i   int
	bad bool
}

// uvarint reads a uvarint: one byte in line, longer ones by long.
func (r *reader) uvarint() uint64 {
	if r.i < len(r.b) && r.b[r.i] < 0x80 {
		r.i++
		return uint64(r.b[r.i-1])
	}
	return r.long()
}

// long reads a uvarint of any length.
func (r *reader) long() uint64 {
	if r.i > len(r.b) {
		r.bad = true
		return 0
	}
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.bad, r.i = true, len(r.b)+1 // nothing after a bad field is read
		return 0
	}
	r.i += n
	return v
}

// varint reads a varint (binary.AppendVarint's zig-zag form).
func (r *reader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// name reads a length and that many bytes.
func (r *reader) name() []byte {
	l := r.uvarint()
	if r.bad || uint64(len(r.b)-r.i) < l {
		r.bad, r.i = true, len(r.b)+1
		return nil
	}
	r.i += int(l)
	return r.b[r.i-int(l) : r.i : r.i]
}
