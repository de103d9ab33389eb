package engine

import "fmt"

// forgottenFenceWords says why the storage refused client's token though
// the lock service counts client as its holder, having seen fence, a
// higher token, when fence came from a grant the service made after
// client's and then forgot (a promoted replica that never got its copy,
// a restart from an older save): no token was handed out again, the
// service went back to a record that still counts client. "node-1 granted
// client-1 token 34 at 13.08s, and the lock service forgot that grant: it
// still counts client-2 as its holder of token 33". "" when the higher
// token came otherwise: client's own token was handed out again, lower.
func (w *world) forgottenFenceWords(client string, token, fence int64) string {
	var first, higher *grantRec
	for _, g := range w.ledger.grants {
		if first == nil && g.client == client && g.token == token {
			first = g
		}
		if g.token == fence {
			higher = g
		}
	}
	if first == nil || higher == nil || !higher.forgotten || higher.start < first.start {
		return ""
	}
	who := higher.client + "'s"
	if higher.client == client {
		who = client + "'s own"
	}
	by := ""
	if higher.node != "" {
		by = " by " + higher.node
	}
	return fmt.Sprintf("token %d came from %s grant%s at %s, which the lock service forgot: it still counts %s as its holder of token %d",
		fence, who, by, FormatMS(higher.start), client, token)
}
