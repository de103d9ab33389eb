package etcdbench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"

	"github.com/leaselab/playground/engine"
)

// clients is how many clients run each phase at once, each on a lock of
// its own.
const clients = 64

// service is one lock service, with the operations it can run a phase of.
type service struct {
	ops   map[string]func(c int) error
	close func()
}

// openService starts the service called name: "engine" (the engine's
// 3-node lock group, with the operations "engine" and "bare") or "etcd-1"
// and "etcd-3" (embedded etcd of that many members, with the operation of
// the same name). A suffix after "#" names another copy of the same
// service.
func openService(name string) (*service, error) {
	kind, _, _ := strings.Cut(name, "#")
	switch kind {
	case "engine":
		g, err := engine.NewLockGroup(3)
		if err != nil {
			return nil, err
		}
		return &service{
			ops: map[string]func(int) error{
				"engine": engine.NewLockDriver(g, clients).Op,
				"bare":   func(int) error { return g.ApplyBare() },
			},
			close: func() { g.Close() },
		}, nil
	case "etcd-1", "etcd-3":
		cli, stop, err := startEtcd(int(kind[len(kind)-1] - '0'))
		if err != nil {
			return nil, err
		}
		locks, err := newEtcdLocks(cli)
		if err != nil {
			stop()
			return nil, err
		}
		return &service{ops: map[string]func(int) error{kind: locks.op}, close: stop}, nil
	}
	return nil, fmt.Errorf("no service %q (engine, etcd-1 or etcd-3)", name)
}

// phase runs op from the clients at once for d (an operation under way
// when d is up finishes) and returns how many ran and how long they took.
func (s *service) phase(op string, d time.Duration) (int, time.Duration, error) {
	do, ok := s.ops[op]
	if !ok {
		return 0, 0, fmt.Errorf("the service has no operation %q", op)
	}
	var done atomic.Int64
	var over atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	start := time.Now()
	timer := time.AfterFunc(d, func() { over.Store(true) })
	defer timer.Stop()
	for c := range clients {
		wg.Go(func() {
			for !over.Load() {
				if err := do(c); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					over.Store(true)
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return int(done.Load()), quiet().Sub(start), first
}

// quiet waits until the process has used less than a fifth of a core for
// quietWindow (or a second has passed) and returns when that window
// began. A phase ends there, so that work a service leaves behind (a
// collection under way, a batch still to write) counts in its own time,
// not in the next phase's, which another process may be running.
func quiet() time.Time {
	deadline := time.Now().Add(time.Second)
	for {
		t0, c0 := time.Now(), processCPU()
		time.Sleep(quietWindow)
		if processCPU()-c0 < time.Since(t0)/5 || time.Now().After(deadline) {
			return t0
		}
	}
}

const quietWindow = 5 * time.Millisecond

// processCPU is the CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// etcdLocks drives etcd the same way. An acquire is a transaction that
// puts the lock key under the client's lease if the key does not exist
// (its revision is the fencing token); a release deletes it if the client
// still holds it.
type etcdLocks struct {
	cli    *clientv3.Client
	keys   []string
	names  []string
	leases []clientv3.LeaseID
	held   []bool
}

func newEtcdLocks(cli *clientv3.Client) (*etcdLocks, error) {
	e := &etcdLocks{cli: cli, keys: make([]string, clients), names: make([]string, clients), leases: make([]clientv3.LeaseID, clients), held: make([]bool, clients)}
	for c := range clients {
		e.keys[c], e.names[c] = fmt.Sprint("/locks/lock-", c), fmt.Sprint("client-", c)
		l, err := cli.Grant(context.Background(), 600)
		if err != nil {
			return nil, err
		}
		e.leases[c] = l.ID
	}
	return e, nil
}

func (e *etcdLocks) op(c int) error {
	ctx := context.Background()
	key := e.keys[c]
	if !e.held[c] {
		resp, err := e.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, e.names[c], clientv3.WithLease(e.leases[c]))).
			Else(clientv3.OpGet(key)).
			Commit()
		if err != nil || !resp.Succeeded {
			return fmt.Errorf("etcd acquire %s: %v (succeeded %v)", key, err, resp != nil && resp.Succeeded)
		}
		e.held[c] = true // the token is resp.Header.Revision
		return nil
	}
	resp, err := e.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.Value(key), "=", e.names[c])).
		Then(clientv3.OpDelete(key)).
		Commit()
	if err != nil || !resp.Succeeded {
		return fmt.Errorf("etcd release %s: %v", key, err)
	}
	e.held[c] = false
	return nil
}

// startEtcd starts an embedded etcd of n members on loopback ports, its
// data on tmpfs without fsync, and returns an in-process client of the
// first member (no sockets, like the engine's group) and a function that
// shuts it all down.
func startEtcd(n int) (*clientv3.Client, func(), error) {
	base := "/dev/shm"
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		base = ""
	}
	dir, removeDir, err := tempDir(base, "etcdbench-")
	if err != nil {
		return nil, nil, err
	}
	var servers []*embed.Etcd
	stop := func() {
		for _, e := range servers {
			e.Close()
		}
		removeDir()
	}
	cfgs := make([]*embed.Config, n)
	var cluster []string
	for i := range cfgs {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i+1)
		cfg.Dir = fmt.Sprintf("%s/%s", dir, cfg.Name)
		cfg.UnsafeNoFsync = true
		cfg.LogLevel = "fatal" // its shutdown logs a "server closed" error
		peer, client := freeURL(), freeURL()
		if peer.Host == "" || client.Host == "" {
			stop()
			return nil, nil, errors.New("no free loopback port")
		}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cluster = append(cluster, cfg.Name+"="+peer.String())
		cfgs[i] = cfg
	}
	started := make([]*embed.Etcd, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		cfg.InitialCluster = strings.Join(cluster, ",")
		wg.Go(func() { started[i], errs[i] = embed.StartEtcd(cfg) })
	}
	wg.Wait()
	for i, e := range started {
		if e != nil {
			servers = append(servers, e)
		}
		if errs[i] != nil {
			stop()
			return nil, nil, fmt.Errorf("etcd member %d: %v", i+1, errs[i])
		}
	}
	for i, e := range servers {
		select {
		case <-e.Server.ReadyNotify():
		case <-time.After(time.Minute):
			stop()
			return nil, nil, fmt.Errorf("etcd member %d was not ready in a minute", i+1)
		}
	}
	cli := v3client.New(servers[0].Server)
	return cli, func() { cli.Close(); stop() }, nil
}

// freeURL is a loopback URL on a port that was free a moment ago, or an
// empty one if none could be had.
func freeURL() url.URL {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return url.URL{}
	}
	defer l.Close()
	return url.URL{Scheme: "http", Host: l.Addr().String()}
}
