package web

import (
	"encoding/json"

	"github.com/leaselab/playground/engine"
)

// Message types of the /ws/run protocol.
const (
	// From the browser.
	MsgStart  = "start"  // scenario, speed, paused
	MsgInject = "inject" // fault
	MsgPause  = "pause"
	MsgResume = "resume"
	MsgStep   = "step"
	MsgSpeed  = "speed" // speed; from the server too: the speed the run plays at, when a faster one waits for a slot
	MsgStop   = "stop"
	// From the server.
	MsgEvent   = "event"   // event, text
	MsgState   = "state"   // state; the first also scenario
	MsgSummary = "summary" // summary, verdict, heading, scenario, states, stopped
	MsgError   = "error"   // message, field, code
	MsgQueued  = "queued"  // position: the run waits for a free slot, this place in line (1 is next); waiting: what waits, if not its start
	// MsgObserved carries nodes: what a live run's real Raft nodes report
	// about themselves, sent when it changes; observed, not part of the
	// deterministic timeline.
	MsgObserved = "observed"
	// MsgMessage carries record: one message the simulated network
	// carried (a request, an answer, a Raft append), sent as it is settled
	// to a browser that asked with "messages" in its start; kept apart
	// from the timeline.
	MsgMessage = "message"
)

// ClientMessage is one message from the browser.
type ClientMessage struct {
	Type     string          `json:"type"`
	Scenario json.RawMessage `json:"scenario,omitempty"`
	Speed    *float64        `json:"speed,omitempty"`
	Fault    json.RawMessage `json:"fault,omitempty"`
	// Paused starts the run paused at 0 (start only): it waits for
	// "step" or "resume".
	Paused bool `json:"paused,omitempty"`
	// Messages asks for the run's messages (start only): each is sent as
	// a "message" as it is settled.
	Messages bool `json:"messages,omitempty"`
}

// ServerMessage is one message to the browser. Only the fields of its type
// are set.
type ServerMessage struct {
	Type  string        `json:"type"`
	Event *engine.Event `json:"event,omitempty"`
	Text  string        `json:"text,omitempty"` // the event in words
	State *State        `json:"state,omitempty"`
	// Scenario is the run's scenario with the engine's defaults filled
	// in (the first state, and the summary, as a state may be replaced by
	// a later one for a browser that is behind): the page draws from it.
	Scenario *engine.Scenario `json:"scenario,omitempty"`
	// States is the whole run folded (summary): the live state messages
	// may skip states a slow browser had no time for; these do not.
	States  []FoldedState   `json:"states,omitempty"`
	Summary *engine.Summary `json:"summary,omitempty"`
	Verdict string          `json:"verdict,omitempty"`
	// Heading heads a finished run (summary only): what happened, in words.
	Heading *engine.Heading `json:"heading,omitempty"`
	Stopped bool            `json:"stopped,omitempty"` // the run ended early (summary), or the error ended it (error)
	Message string          `json:"message,omitempty"` // an error in words
	Field   string          `json:"field,omitempty"`   // the input at fault
	Code    string          `json:"code,omitempty"`    // the error's kind: "invalid", "busy", "unavailable", "internal" as in HTTP errors (mapError); "bad_message", "no_run", "run_live", "too_fast", "too_long", "turn_over" (it held its place long enough while others waited), "shutdown", "queued" (a control before the run started), "stopped" (it left the line)
	// Position is a waiting run's place in line, 1 being next.
	Position int `json:"position,omitempty"`
	// Waiting says what waits in line (queued), when it is not the run's
	// start: "fault", a fault injected into a run whose simulation is
	// long, or "stop", such a run stopped and waiting to be summed up (the
	// run stands still until its turn comes); "new speed", a speed that
	// needs a slot (the run goes on at the speed it plays at meanwhile).
	Waiting string `json:"waiting,omitempty"`
	// Speed is the speed the run plays at (speed): simulated seconds a
	// wall second, 0 for as fast as it goes.
	Speed *float64 `json:"speed,omitempty"`
	// Nodes are the Raft nodes as they see themselves (observed).
	Nodes []engine.NodeStatus `json:"nodes,omitempty"`
	// Record is one message the network carried (MsgMessage).
	Record *engine.Message `json:"record,omitempty"`
	// MessagesTruncated says the run had more messages than were sent
	// (summary, when messages were asked for).
	MessagesTruncated bool `json:"messages_truncated,omitempty"`
}
