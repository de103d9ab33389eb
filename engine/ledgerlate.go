package engine

import "fmt"

// forgotSinceWords says, of an answer granting or confirming client's
// lease of token that arrives after the lock service forgot that grant,
// that the node served it before it forgot: "node-1 served it at 21.92s,
// before the lock service forgot this grant at 21.921s: the answer
// arrived after, and renewed nothing the service still counts". A
// request a node serves while the node that forgets is rejoining, or as
// a partition heals, can be answered after the timeline's
// grant_forgotten: without these words the timeline would read as if a
// forgotten grant were renewed. "" when the grant was not forgotten
// between the serving and now, or came back since (grant_back).
func (w *world) forgotSinceWords(client string, token int64, by served) string {
	g := w.ledger.find(client, token)
	if g == nil || token == 0 || !g.forgotten || !g.lostRunning || g.lostAt < by.at || g.lostAt > w.s.now {
		return ""
	}
	node := by.node
	if node == "" {
		node = "the node"
	}
	return fmt.Sprintf("%s served it at %s, before the lock service forgot this grant at %s: the answer arrived after, and the service no longer counts the grant",
		node, FormatMS(by.at), FormatMS(g.lostAt))
}

// withForgotSince appends forgotSinceWords to an answer's message.
func (w *world) withForgotSince(msg, client string, token int64, by served) string {
	words := w.forgotSinceWords(client, token, by)
	switch {
	case words == "":
		return msg
	case msg == "":
		return words
	}
	return msg + "; " + words
}

// releasedForgottenWords says, of a release the lock service answered
// after it forgot the grant while its lease ran, that the release freed
// nothing it still counted: "the lock service had forgotten that grant at
// 32.328s, so the release changed nothing". Without these words the
// timeline would read as if the forgotten grant had held the lock until
// then. "" when the grant was not forgotten, or came back since
// (grant_back).
func (w *world) releasedForgottenWords(client string, token int64) string {
	g := w.ledger.find(client, token)
	if g == nil || token == 0 || !g.forgotten || !g.lostRunning || g.lostAt > w.s.now {
		return ""
	}
	return fmt.Sprintf("the lock service had forgotten that grant at %s, so the release changed nothing", FormatMS(g.lostAt))
}
