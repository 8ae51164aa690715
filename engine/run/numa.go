package run

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The machine's NUMA topology, read by host.json (HostInfo.NUMA) and by every placement record.

// A NUMANode is one /sys/devices/system/node/nodeN and its CPUs.
type NUMANode struct {
	ID   int    `json:"id"`
	CPUs string `json:"cpus"`
}

// ReadNUMA lists the NUMA nodes under sysNode (/sys/devices/system/node).
func ReadNUMA(sysNode string) ([]NUMANode, error) {
	dirs, err := filepath.Glob(filepath.Join(sysNode, "node[0-9]*"))
	if err != nil || len(dirs) == 0 {
		return nil, fmt.Errorf("no NUMA nodes under %s: NUMA placement unknown", sysNode)
	}
	var nodes []NUMANode
	for _, d := range dirs {
		id, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "node"))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "cpulist"))
		if err != nil {
			return nodes, fmt.Errorf("NUMA node %d: %w", id, err)
		}
		nodes = append(nodes, NUMANode{ID: id, CPUs: strings.TrimSpace(string(b))})
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].ID < nodes[j].ID })
	return nodes, nil
}

// NUMASpan returns the NUMA nodes holding at least one of cpus.
func NUMASpan(nodes []NUMANode, cpus []int) []int {
	span := []int{}
	for _, n := range nodes {
		list, err := ParseCPUList(n.CPUs)
		if err != nil {
			continue
		}
		if slices.ContainsFunc(list, func(c int) bool { return slices.Contains(cpus, c) }) {
			span = append(span, n.ID)
		}
	}
	return span
}
