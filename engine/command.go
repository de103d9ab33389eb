package engine

import (
	"encoding/binary"
	"errors"
)

// The Raft log carries commands in a compact binary form, written and read
// by hand (no reflection): an op byte, varints for the token, lease, time
// and request id, then the lock and client names, each after its length.
// A lock command is 20 to 40 bytes.

// EncodeCommand encodes a command for the Raft log. The buffer is new
// every time: the in-memory log keeps it, shared by every node.
func EncodeCommand(c Command) []byte {
	b := make([]byte, 0, 1+4*binary.MaxVarintLen64+2+len(c.Lock)+len(c.Client))
	b = append(b, byte(c.Op))
	b = binary.AppendVarint(b, c.Token)
	b = binary.AppendVarint(b, c.Lease)
	b = binary.AppendVarint(b, c.Now)
	b = binary.AppendUvarint(b, c.ReqID)
	b = binary.AppendUvarint(b, uint64(len(c.Lock)))
	b = append(b, c.Lock...)
	b = binary.AppendUvarint(b, uint64(len(c.Client)))
	b = append(b, c.Client...)
	return b
}

var errBadCommand = errors.New("malformed lock command")

// DecodeCommand decodes EncodeCommand's output. It never modifies b.
func DecodeCommand(b []byte) (Command, error) {
	return decodeCommand(b, nil)
}

// decodeCommand decodes a command, taking its names from names when they
// are there (a node sees the same few lock and client names again and
// again, and a map lookup by string(bytes) does not allocate) and adding
// them when not.
func decodeCommand(b []byte, names map[string]string) (Command, error) {
	var c Command
	if len(b) < 1 {
		return c, errBadCommand
	}
	c.Op, b = Op(b[0]), b[1:]
	for _, p := range [...]*int64{&c.Token, &c.Lease, &c.Now} {
		v, n := binary.Varint(b)
		if n <= 0 {
			return c, errBadCommand
		}
		*p, b = v, b[n:]
	}
	id, n := binary.Uvarint(b)
	if n <= 0 {
		return c, errBadCommand
	}
	c.ReqID, b = id, b[n:]
	for _, p := range [...]*string{&c.Lock, &c.Client} {
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			return c, errBadCommand
		}
		raw := b[n : n+int(l)]
		if s, ok := names[string(raw)]; ok {
			*p = s
		} else {
			*p = string(raw)
			if names != nil && len(names) < maxInternedNames {
				names[*p] = *p
			}
		}
		b = b[n+int(l):]
	}
	if len(b) != 0 {
		return c, errBadCommand
	}
	return c, nil
}

// maxInternedNames bounds a node's table of names: a run has one lock and
// at most MaxClients clients; a benchmark's many clients just allocate
// past it.
const maxInternedNames = 256
