package pbscmd

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
)

// nodeAttr is one pbsnodes attribute. Numeric resource values keep their
// amount so that a host's vnodes can be summed; times keep their epoch for
// JSON.
type nodeAttr struct {
	attr
	rank    int
	amount  float64
	def     *model.ResourceDef // set for summable resources
	epoch   int64              // set for times
	slots   []string           // set for jobs
	numeric bool               // JSON number (Port, pcpus, Priority)
}

// Ranks follow the server's node attribute definitions, the order pbsnodes
// prints in.
const (
	rankMom = iota
	rankPort
	rankVersion
	rankNtype
	rankState
	rankPcpus
	rankPriority
	rankJobs
	rankAvail
	rankAssigned
	rankComment
	rankResvEnable
	rankSharing
	rankProvEnable
	rankCurrentAOE
	rankLastStateChange
	rankLastUsed
)

// vnodeAttrs lists a vnode's attributes that are not at their default.
func vnodeAttrs(v *model.Vnode, defs model.ResourceDefs) []nodeAttr {
	var out []nodeAttr
	add := func(rank int, name, value string) {
		if value != "" {
			out = append(out, nodeAttr{attr: attr{Name: name, Value: value}, rank: rank})
		}
	}
	addNum := func(rank int, name string, n int) {
		if n != 0 {
			out = append(out, nodeAttr{attr: attr{Name: name, Value: strconv.Itoa(n)}, rank: rank, numeric: true})
		}
	}
	addTime := func(rank int, name string, epoch int64) {
		if epoch != 0 {
			out = append(out, nodeAttr{attr: attr{Name: name}, rank: rank, epoch: epoch})
		}
	}
	add(rankMom, "Mom", v.Mom)
	addNum(rankPort, "Port", v.Port)
	add(rankVersion, "pbs_version", v.Version)
	add(rankNtype, "ntype", "PBS")
	add(rankState, "state", v.State.String())
	addNum(rankPcpus, "pcpus", v.Pcpus)
	addNum(rankPriority, "Priority", v.Priority)
	if slots := v.JobSlots(); len(slots) > 0 {
		out = append(out, nodeAttr{attr: attr{Name: "jobs", Value: strings.Join(slots, ", ")}, rank: rankJobs, slots: slots})
	}
	for _, r := range model.SortedKeys(v.Available) {
		a := nodeAttr{attr: attr{Name: "resources_available", Resource: r, Value: v.Available[r]}, rank: rankAvail}
		if d, ok := defs[r]; ok && d.Numeric() && d.Type != model.TypeDuration {
			if amt, err := d.Amount(v.Available[r]); err == nil {
				a.def, a.amount = &d, amt
			}
		}
		out = append(out, a)
	}
	for _, r := range assignedNames(v) {
		d, ok := defs[r]
		if !ok {
			d = model.ResourceDef{Name: r, Type: model.TypeFloat}
		}
		amt := v.Assigned[r]
		out = append(out, nodeAttr{
			attr: attr{Name: "resources_assigned", Resource: r, Value: d.FormatAmount(amt)},
			rank: rankAssigned, def: &d, amount: amt,
		})
	}
	add(rankComment, "comment", v.Comment)
	add(rankResvEnable, "resv_enable", "True")
	sharing := v.Sharing
	if sharing == "" {
		sharing = "default_shared"
	}
	add(rankSharing, "sharing", sharing)
	if v.ProvisionEnable {
		add(rankProvEnable, "provision_enable", "True")
	}
	add(rankCurrentAOE, "current_aoe", v.CurrentAOE)
	addTime(rankLastStateChange, "last_state_change_time", v.LastStateChange)
	addTime(rankLastUsed, "last_used_time", v.LastUsed)
	return out
}

// assignedNames lists resources_assigned entries: every consumable the
// vnode has (shown even at zero, as "0" or "0kb") and anything assigned.
func assignedNames(v *model.Vnode) []string {
	set := map[string]bool{}
	for r := range v.Capacity {
		set[r] = true
	}
	for r := range v.Assigned {
		set[r] = true
	}
	return model.SortedKeys(set)
}

// hostAttrs merges the attributes of one host's vnodes, as pbsnodes -a
// reports hosts: resource amounts are summed, job slots concatenated,
// times take the latest, and any other value that differs between the
// vnodes prints as "<various>".
func hostAttrs(vnodes []*model.Vnode, defs model.ResourceDefs) []nodeAttr {
	type key struct {
		rank     int
		name     string
		resource string
	}
	merged := map[key]*nodeAttr{}
	var keys []key
	for _, v := range vnodes {
		for _, a := range vnodeAttrs(v, defs) {
			k := key{a.rank, a.Name, a.Resource}
			m, ok := merged[k]
			if !ok {
				c := a
				merged[k] = &c
				keys = append(keys, k)
				continue
			}
			switch {
			case a.def != nil && m.def != nil:
				m.amount += a.amount
				m.Value = sumValue(m)
			case a.slots != nil:
				m.slots = append(m.slots, a.slots...)
				m.Value = strings.Join(m.slots, ", ")
			case a.epoch != 0:
				if a.epoch > m.epoch {
					m.epoch = a.epoch
				}
			case a.Value != m.Value:
				m.Value = "<various>"
				m.numeric = false
			}
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if keys[i].rank != keys[j].rank {
			return keys[i].rank < keys[j].rank
		}
		return keys[i].resource < keys[j].resource
	})
	out := make([]nodeAttr, len(keys))
	for i, k := range keys {
		out[i] = *merged[k]
	}
	return out
}

// sumValue prints a summed amount: resources_assigned in the display unit
// (kb for sizes), resources_available in the canonical stored form.
func sumValue(a *nodeAttr) string {
	if a.Name == "resources_assigned" {
		return a.def.FormatAmount(a.amount)
	}
	switch a.def.Type {
	case model.TypeSize:
		return model.FormatSize(int64(a.amount))
	case model.TypeFloat:
		return strconv.FormatFloat(a.amount, 'f', -1, 64)
	}
	return strconv.FormatInt(int64(a.amount), 10)
}

// writeNodeLong writes the long layout: the name, "     name = value"
// lines, an empty line. Nothing is folded.
func writeNodeLong(b *strings.Builder, name string, attrs []nodeAttr, loc *time.Location) {
	b.WriteString(name + "\n")
	for _, a := range attrs {
		v := a.Value
		if a.epoch != 0 {
			v = formatCtime(a.epoch, loc)
		}
		b.WriteString("     " + a.Name)
		if a.Resource != "" {
			b.WriteString("." + a.Resource)
		}
		b.WriteString(" = " + v + "\n")
	}
	b.WriteByte('\n')
}

// nodeJSON converts attributes to pbsnodes -F json's object: nested
// resources, a jobs array, epoch times, zero assignments left out.
func nodeJSON(attrs []nodeAttr) *jsonObject {
	o := newJSONObject()
	for _, a := range attrs {
		switch {
		case a.Resource != "":
			if a.Name == "resources_assigned" && a.amount == 0 {
				continue
			}
			sub, ok := o.vals[a.Name].(*jsonObject)
			if !ok {
				sub = newJSONObject()
				o.Set(a.Name, sub)
			}
			sub.SetParsed(a.Resource, a.Value)
		case a.slots != nil:
			arr := make([]any, len(a.slots))
			for i, s := range a.slots {
				arr[i] = s
			}
			o.Set(a.Name, arr)
		case a.epoch != 0:
			o.Set(a.Name, a.epoch)
		case a.numeric:
			o.SetParsed(a.Name, a.Value)
		default:
			o.Set(a.Name, a.Value)
		}
	}
	return o
}

// Summary (-aS) layout, OpenPBS's fixed header.
const (
	nodeSummaryHeader = "vnode           state           OS       hardware host            queue        mem     ncpus   nmics   ngpus  comment\n" +
		"--------------- --------------- -------- -------- --------------- ---------- -------- ------- ------- ------- ---------\n"
)

// writeNodeSummary writes pbsnodes -aS: one row per vnode, the first state
// only, memory reduced to three digits.
func writeNodeSummary(b *strings.Builder, vnodes []*model.Vnode) {
	b.WriteString(nodeSummaryHeader)
	for _, v := range vnodes {
		state, _, _ := strings.Cut(v.State.String(), ",")
		mem := "0"
		if m, ok := v.Available["mem"]; ok {
			if n, err := model.ParseSize(m); err == nil {
				mem = sizeThreeDigits(n)
			}
		}
		num := func(r string) string {
			if s, ok := v.Available[r]; ok {
				return s
			}
			return "0"
		}
		host := v.Available["host"]
		if host == "" {
			host = v.Host
		}
		comment := v.Comment
		if comment == "" {
			comment = "--"
		}
		fmt.Fprintf(b, "%-15s %-15s %-8s %-8s %-15s %-10s %8s %7s %7s %7s %s\n",
			truncMark(v.Name, 15), truncMark(state, 15), "--", "--", truncMark(host, 15), "--",
			mem, num("ncpus"), num("nmics"), num("ngpus"), comment)
	}
}

// sizeThreeDigits reduces bytes until at most three digits remain, dropping
// the remainder ("251gb" for 263721296kb), with a kb at least.
func sizeThreeDigits(b int64) string {
	units := []string{"kb", "mb", "gb", "tb", "pb"}
	v := b / 1024
	u := 0
	for v >= 1000 && u < len(units)-1 {
		v /= 1024
		u++
	}
	return fmt.Sprintf("%d%s", v, units[u])
}

// writeNodeList writes pbsnodes -l: vnodes that are down, offline or in
// an unknown state, as "%-20s %s %s".
func writeNodeList(b *strings.Builder, vnodes []*model.Vnode) {
	for _, v := range vnodes {
		if v.State&(model.NodeDown|model.NodeOffline|model.NodeStateUnknown) == 0 {
			continue
		}
		fmt.Fprintf(b, "%-20s %s %s\n", v.Name, v.State.String(), v.Comment)
	}
}

// Job summary (-aSj) layout, OpenPBS's fixed header.
const nodeJobSummaryHeader = "                                                        mem       ncpus   nmics   ngpus\n" +
	"vnode           state           njobs   run   susp      f/t        f/t     f/t     f/t   jobs\n" +
	"--------------- --------------- ------ ----- ------ ------------ ------- ------- ------- -------\n"

// writeNodeJobSummary writes pbsnodes -aSj: per vnode the first state, the
// number of jobs (running, suspended), free/total of mem, ncpus, nmics and
// ngpus, and the job ids (without ".server" for the local server).
// states maps job ids to their state letter.
func writeNodeJobSummary(b *strings.Builder, vnodes []*model.Vnode, defs model.ResourceDefs, server string, states map[string]string) {
	b.WriteString(nodeJobSummaryHeader)
	for _, v := range vnodes {
		state, _, _ := strings.Cut(v.State.String(), ",")
		assignedBytes := func(r string) int64 {
			amt, ok := v.Assigned[r]
			if !ok {
				return 0
			}
			d, ok := defs[r]
			if !ok {
				return int64(amt)
			}
			n, _ := model.ParseSize(d.FormatAmount(amt))
			return n
		}
		totalMem, _ := model.ParseSize(v.Available["mem"])
		mem := sizeThreeDigits(totalMem-assignedBytes("mem")) + "/" + sizeThreeDigits(totalMem)
		count := func(r string) string {
			total, _ := strconv.ParseFloat(v.Available[r], 64)
			free := total - v.Assigned[r]
			return strconv.FormatFloat(free, 'f', -1, 64) + "/" + strconv.FormatFloat(total, 'f', -1, 64)
		}
		ids := model.SortedKeys(v.Jobs)
		sort.SliceStable(ids, func(i, j int) bool { return model.LessJobID(ids[i], ids[j]) })
		run, susp := 0, 0
		short := make([]string, len(ids))
		for i, id := range ids {
			switch states[id] {
			case model.StateRunning:
				run++
			case model.StateSuspended:
				susp++
			}
			short[i] = strings.TrimSuffix(id, "."+server)
		}
		jobs := strings.Join(short, ",")
		if jobs == "" {
			jobs = "--"
		}
		fmt.Fprintf(b, "%-15s %-15s %6d %5d %6d %12s %7s %7s %7s %s\n",
			truncMark(v.Name, 15), truncMark(state, 15), len(ids), run, susp,
			mem, count("ncpus"), count("nmics"), count("ngpus"), jobs)
	}
}
