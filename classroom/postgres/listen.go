package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

// listener holds one connection that LISTENs on the store's channel and
// hands each notification to the local hub. If the connection drops it
// reconnects, then tells every subscriber to reload, since notifications
// sent meanwhile are lost.
type listener struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// listen connects and LISTENs before returning, so a change committed
// after Open returns is never missed.
func listen(ctx context.Context, url, channel string, hub *sqlstore.Hub) (*listener, error) {
	conn, err := connect(ctx, url, channel)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	l := &listener{cancel: cancel, done: make(chan struct{})}
	go l.run(lctx, conn, url, channel, hub)
	return l, nil
}

func connect(ctx context.Context, url, channel string) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

func (l *listener) run(ctx context.Context, conn *pgx.Conn, url, channel string, hub *sqlstore.Hub) {
	defer close(l.done)
	backoff := 100 * time.Millisecond
	for {
		for conn != nil {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				conn.Close(context.Background())
				conn = nil
				break
			}
			backoff = 100 * time.Millisecond
			if c, err := sqlstore.DecodeChange(n.Payload); err == nil {
				hub.Publish(c)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
		c, err := connect(ctx, url, channel)
		if err != nil {
			continue
		}
		conn = c
		hub.PublishAll(classroom.ChangeResync)
	}
}

// stop ends the listener and waits for its connection to close.
func (l *listener) stop() {
	l.cancel()
	<-l.done
}
