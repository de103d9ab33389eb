package sqlstore

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/leaselab/playground/classroom"
)

func TestHub(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := NewHub()
	ctx, cancel := context.WithCancel(context.Background())
	a, _ := h.Subscribe(ctx, 1)
	b, _ := h.Subscribe(context.Background(), 2)
	h.Publish(classroom.Change{ClassID: 1, Kind: classroom.ChangeJoin})
	if c := <-a; c.Kind != classroom.ChangeJoin {
		t.Fatalf("got %+v", c)
	}
	select {
	case c := <-b:
		t.Fatalf("class 2 got class 1's change %+v", c)
	default:
	}
	// Publishing never blocks, however far behind a subscriber is.
	for range 3 * subBuffer {
		h.Publish(classroom.Change{ClassID: 2, Kind: classroom.ChangeAttempt})
	}
	h.PublishAll(classroom.ChangeResync)
	cancel()
	for range a {
	}
	h.Close()
	n := 0
	for range b {
		n++
	}
	if n != subBuffer {
		t.Fatalf("a slow subscriber kept %d changes, want its buffer's %d", n, subBuffer)
	}
	if _, err := h.Subscribe(context.Background(), 3); classroom.ErrorCode(err) != classroom.EUNAVAILABLE {
		t.Fatalf("subscribe after close: %v", err)
	}
	h.Close() // twice is harmless
}

func TestDialectPlaceholders(t *testing.T) {
	d := &Dialect{Dollar: true}
	if got := d.q("SELECT a FROM t WHERE b = ? AND c = ?"); got != "SELECT a FROM t WHERE b = $1 AND c = $2" {
		t.Fatalf("got %q", got)
	}
	if got := (&Dialect{}).q("x = ?"); got != "x = ?" {
		t.Fatalf("sqlite placeholders changed: %q", got)
	}
}

func TestChangePayload(t *testing.T) {
	c := classroom.Change{ClassID: 42, Kind: classroom.ChangeAttempt, LearnerID: 7}
	got, err := DecodeChange(EncodeChange(c))
	if err != nil || got != c {
		t.Fatalf("round trip: %+v %v", got, err)
	}
}
