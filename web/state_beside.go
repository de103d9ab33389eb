package web

import (
	"slices"
	"strings"

	"github.com/leaselab/playground/engine"
)

// Two primaries can serve at once, each its side of a partition (the
// async replica's monitor promoted one while the other, cut off, went on
// answering its side), each with its own holder; the lock panel shows
// one: the holder of the node the clients reach, the primary the monitor
// put in place while some client reaches it. The fold keeps the other
// beside it (State.beside), and shows it when the panel's grant ends
// while that primary still leads and its lease runs.

// side is one partition in force: who it cuts off from the rest, from
// at until until.
type side struct {
	at, until int64
	members   []string
}

// partitioned adds the side of the partition e tells of, whole: its
// members are told one after the other, at one instant, with one end,
// and each one's message names the others (told). Two partitions that
// begin at one instant stay two sides.
func (s *State) partitioned(e engine.Event) {
	if !slices.ContainsFunc(s.sides, func(p side) bool {
		return p.at == e.T && p.until == e.Until && slices.Contains(p.members, e.Actor)
	}) {
		s.sides = append(slices.Clone(s.sides), side{at: e.T, until: e.Until, members: told(e)})
	}
}

// told is the side a partitioned event's message names: its actor and
// those cut off with it ("is cut off, with node-2, client-1, from the
// rest"); its actor alone when it is cut off from everything else.
func told(e engine.Event) []string {
	with, ok := strings.CutPrefix(e.Message, "is cut off, with ")
	with, end := strings.CutSuffix(with, ", from the rest")
	if !ok || !end {
		return []string{e.Actor}
	}
	return append([]string{e.Actor}, strings.Split(with, ", ")...)
}

// healed ends the partition that ends now and holds e's actor: its
// members heal together, at one instant. A heal at another time takes
// e's actor off the first side that holds it.
func (s *State) healed(e engine.Event) {
	in := func(p side) bool { return slices.Contains(p.members, e.Actor) }
	if i := slices.IndexFunc(s.sides, func(p side) bool { return p.until == e.T && in(p) }); i >= 0 {
		s.sides = slices.Delete(slices.Clone(s.sides), i, i+1)
		return
	}
	i := slices.IndexFunc(s.sides, in)
	if i < 0 {
		return
	}
	s.sides[i].members = slices.DeleteFunc(slices.Clone(s.sides[i].members), func(m string) bool { return m == e.Actor })
	if len(s.sides[i].members) == 0 {
		s.sides = slices.Delete(slices.Clone(s.sides), i, i+1)
	}
}

// cutOff reports whether a partition in force cuts actor off.
func (s *State) cutOff(actor string) bool {
	return slices.ContainsFunc(s.sides, func(p side) bool { return slices.Contains(p.members, actor) })
}

// reached reports whether some client reaches node: no partition in force
// has one on its side and not the other.
func (s *State) reached(node string) bool {
	return slices.ContainsFunc(s.clients, func(c string) bool {
		return !slices.ContainsFunc(s.sides, func(p side) bool {
			return slices.Contains(p.members, c) != slices.Contains(p.members, node)
		})
	})
}

// leads reports whether node serves as the primary (or leader) now.
func (s *State) leads(node string) bool {
	return node != "" && slices.Contains(s.Nodes, NodeState{Name: node, Role: "leader"})
}

// back shows a forgotten grant that came back (EventKind.Back), at t,
// and keeps the panel's grant beside it; or, when the panel shows
// another grant made or renewed by another node that still leads, its
// lease running, and some client reaches that node, keeps the grant that
// came back beside that one: its deposed primary holds it for the holder
// that reaches it alone.
func (s *State) back(b LockRow, t int64) {
	l := s.Lock
	other := l.Holder != "" && (l.Holder != b.Holder || l.Token != b.Token) && l.Node != b.Node && l.LeaseUntil > t
	switch {
	case other && s.leads(l.Node) && s.reached(l.Node):
		s.beside = b
	case other:
		s.beside, s.Lock = l, b
	default:
		s.beside, s.Lock = LockRow{}, b
	}
}

// drop ends holder's grant of token at t: beside the panel's, or the
// panel's, which then shows the grant kept beside it, if that one's
// primary still leads, or is down (a crashed primary's grant lasts
// until the service forgets it), and its lease runs; else the lock free.
func (s *State) drop(holder string, token, t int64) {
	if s.beside.Holder == holder && s.beside.Token == token {
		s.beside = LockRow{}
	}
	if s.Lock.Holder != holder || s.Lock.Token != token {
		return
	}
	s.Lock = LockRow{Name: s.Lock.Name}
	if b := s.beside; b.Holder != "" && b.LeaseUntil > t && (s.leads(b.Node) || slices.Contains(s.Nodes, NodeState{Name: b.Node, Role: "down"})) {
		s.Lock = b
	}
	s.beside = LockRow{}
}
