package engine

import (
	"fmt"
	"slices"
)

// aimNameLoseDisk names the aimed fault that makes a node lose its disk.
const aimNameLoseDisk = "lost disk under a grant"

// loseDiskAim is drawn only when a batch allows lose_disk
// (ChaosOptions.LoseDisk): without it, "Raft plus fencing never fails"
// stays a property of the default generator.
var loseDiskAim = aim{aimNameLoseDisk, 20, aimLoseDisk}

// aimLoseDisk strikes where a lost disk breaks Raft: a minority of
// followers is cut off just before a grant, so only the leader and the
// other followers store it; a little later the leader crashes and one of
// those followers loses its disk, so the next majority can be made of
// nodes that never had the grant or forgot it. On a single node the one
// copy is simply gone.
func aimLoseDisk(g *generation, after int64) ([]Fault, string, bool) {
	n := g.sc.Lock.Nodes
	lat := g.sc.Lock.Latency.MS()
	lease := g.lease()
	for _, m := range g.marks(after, true) {
		if m.kind != KindGranted || m.node == "" {
			continue
		}
		served := m.t - lat
		crash := m.t + g.pick(1, max(lease/2, 1))
		if n == 1 {
			return []Fault{{At: Ms(crash), Do: FaultLoseDisk, Target: m.node}},
				fmt.Sprintf("%s loses its disk %s after granting token %d to %s", m.node, FormatMS(crash-m.t), m.token, m.client), true
		}
		if served < after {
			continue
		}
		var followers []string
		for i := 1; i <= n; i++ {
			if name := fmt.Sprintf("node-%d", i); name != m.node {
				followers = append(followers, name)
			}
		}
		g.rng.Shuffle(len(followers), func(i, j int) { followers[i], followers[j] = followers[j], followers[i] })
		laggers := slices.Clone(followers[:n/2])
		wiped := followers[n/2:] // every other follower: none with the grant is left
		cut := max(after, served-g.pick(0, 5)*100)
		heal := crash + g.pick(1, 10)*100
		faults := []Fault{
			{At: Ms(cut), Do: FaultPartition, Side: laggers, For: Ms(heal - cut)},
			{At: Ms(crash), Do: FaultCrash, Target: m.node},
		}
		for _, x := range wiped {
			faults = append(faults, Fault{At: Ms(crash), Do: FaultLoseDisk, Target: x})
		}
		return faults, fmt.Sprintf("%s miss the grant of token %d to %s; %s later its leader %s crashes and %s lose their disks",
			listWords(laggers, "and"), m.token, m.client, FormatMS(crash-m.t), m.node, listWords(wiped, "and")), true
	}
	return nil, "", false
}
