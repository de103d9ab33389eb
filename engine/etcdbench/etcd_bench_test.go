package etcdbench

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"

	"github.com/leaselab/playground/engine"
)

const clients = 64

// BenchmarkLockServices runs the same lock operations, from 64 clients on
// distinct locks (acquire, release, acquire ...), against three services
// in one process, and a bare raft.Apply beside them:
//
//   - engine: the engine's 3-node hashicorp/raft lock group (the path runs
//     use: encode, Apply on the leader, commit on a majority, the lock
//     state machine on every node);
//   - bare: raft.Apply of an empty entry on the same group, nothing for the
//     state machine to do (the ceiling);
//   - etcd-1, etcd-3: embedded etcd (go.etcd.io/etcd/server/v3/embed), one
//     member and three, data on tmpfs with UnsafeNoFsync, reached through
//     its in-process client (v3client: no sockets, like the engine). An
//     acquire is a transaction that puts the lock key under the client's
//     lease if the key does not exist (its revision is the fencing
//     token); a release deletes it if the client still holds it.
//
// Each service runs b.N operations, in forty slices that alternate with
// the others' so that a change in the machine's load falls on all of them.
// The order changes from slice to slice (williams) so that each service
// comes right after each other one as often: a phase pays for the
// collections that the garbage of the phase before it sets off, and etcd
// makes much more garbage than the engine (with a fixed order the engine
// always came right after etcd-3). The ratios are the engine's throughput
// over each other's.
func BenchmarkLockServices(b *testing.B) {
	group, err := engine.NewLockGroup(3)
	if err != nil {
		b.Fatal(err)
	}
	defer group.Close()
	etcd1 := startEtcd(b, 1)
	etcd3 := startEtcd(b, 3)

	eng := newEngineLocks(group)
	services := []struct {
		name string
		op   func(c int) error
	}{
		{"engine", eng.op},
		{"bare", func(int) error { return group.ApplyBare() }},
		{"etcd-1", newEtcdLocks(b, etcd1).op},
		{"etcd-3", newEtcdLocks(b, etcd3).op},
	}
	took := make([]time.Duration, len(services))
	b.ResetTimer()
	for r, n := range slices(b.N) {
		for _, i := range williams[r%len(williams)] {
			took[i] += phase(b, n, services[i].op)
		}
	}
	b.StopTimer()
	rate := func(i int) float64 { return float64(b.N) / took[i].Seconds() }
	for i, s := range services {
		b.ReportMetric(rate(i), s.name+"-ops/s")
	}
	b.ReportMetric(rate(0)/rate(1), "engine/bare")
	b.ReportMetric(rate(0)/rate(2), "engine/etcd-1")
	b.ReportMetric(rate(0)/rate(3), "engine/etcd-3")
	b.ReportMetric(0, "ns/op")
}

// williams is a balanced Latin square of the four services' order: in
// its four rows every service comes right after every other one exactly
// once (turning one order round would keep each service behind the same
// one).
var williams = [4][4]int{{0, 1, 3, 2}, {1, 2, 0, 3}, {2, 3, 1, 0}, {3, 0, 2, 1}}

// slices splits n operations into up to forty nearly equal slices.
func slices(n int) []int {
	k := min(n, 40)
	out := make([]int, k)
	for i := range out {
		out[i] = n/k + btoi(i < n%k)
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// phase runs n operations from the clients at once.
func phase(b *testing.B, n int, op func(c int) error) time.Duration {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if err := op(c); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// engineLocks drives the engine's lock group: each client takes its lock
// and gives it back, with increasing request ids.
type engineLocks struct {
	g      *engine.LockGroup
	locks  []string
	names  []string
	tokens []int64
	seqs   []uint64
}

func newEngineLocks(g *engine.LockGroup) *engineLocks {
	e := &engineLocks{g: g, locks: make([]string, clients), names: make([]string, clients), tokens: make([]int64, clients), seqs: make([]uint64, clients)}
	for c := range clients {
		e.locks[c], e.names[c] = fmt.Sprint("lock-", c), fmt.Sprint("client-", c)
	}
	return e
}

func (e *engineLocks) op(c int) error {
	e.seqs[c]++
	cmd := engine.Command{Op: engine.OpAcquire, Lock: e.locks[c], Client: e.names[c], Lease: 10000, ReqID: e.seqs[c]}
	if e.tokens[c] != 0 {
		cmd.Op, cmd.Token = engine.OpRelease, e.tokens[c]
	}
	r, err := e.g.Do(cmd)
	if err != nil || !r.OK {
		return fmt.Errorf("engine %v: %+v %v", cmd.Op, r, err)
	}
	e.tokens[c] = 0
	if cmd.Op == engine.OpAcquire {
		e.tokens[c] = r.Token
	}
	return nil
}

// etcdLocks drives etcd the same way.
type etcdLocks struct {
	cli    *clientv3.Client
	keys   []string
	names  []string
	leases []clientv3.LeaseID
	held   []bool
}

func newEtcdLocks(b *testing.B, cli *clientv3.Client) *etcdLocks {
	e := &etcdLocks{cli: cli, keys: make([]string, clients), names: make([]string, clients), leases: make([]clientv3.LeaseID, clients), held: make([]bool, clients)}
	for c := range clients {
		e.keys[c], e.names[c] = fmt.Sprint("/locks/lock-", c), fmt.Sprint("client-", c)
		l, err := cli.Grant(context.Background(), 600)
		if err != nil {
			b.Fatal(err)
		}
		e.leases[c] = l.ID
	}
	return e
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
// first member. Everything is shut down when the benchmark ends.
func startEtcd(b *testing.B, n int) *clientv3.Client {
	b.Helper()
	base := "/dev/shm"
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		base = ""
	}
	dir, err := os.MkdirTemp(base, "etcdbench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	cfgs := make([]*embed.Config, n)
	var cluster []string
	for i := range cfgs {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i+1)
		cfg.Dir = fmt.Sprintf("%s/%s", dir, cfg.Name)
		cfg.UnsafeNoFsync = true
		cfg.LogLevel = "fatal" // its shutdown logs a "server closed" error
		peer, client := freeURL(b), freeURL(b)
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cluster = append(cluster, cfg.Name+"="+peer.String())
		cfgs[i] = cfg
	}
	servers := make([]*embed.Etcd, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		cfg.InitialCluster = strings.Join(cluster, ",")
		wg.Go(func() { servers[i], errs[i] = embed.StartEtcd(cfg) })
	}
	wg.Wait()
	for i, e := range servers {
		if errs[i] != nil {
			b.Fatalf("etcd %d: %v", i+1, errs[i])
		}
		b.Cleanup(e.Close)
		select {
		case <-e.Server.ReadyNotify():
		case <-time.After(time.Minute):
			b.Fatalf("etcd member %d was not ready in a minute", i+1)
		}
	}
	cli := v3client.New(servers[0].Server)
	b.Cleanup(func() { cli.Close() })
	return cli
}

// freeURL is a loopback URL on a port that was free a moment ago.
func freeURL(b *testing.B) url.URL {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return url.URL{Scheme: "http", Host: l.Addr().String()}
}
