package pbscmd

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// writeList writes objects in qmgr's list layout: "Type name", then
// "    attr = value" lines (values folded at a comma past column 80 onto a
// TAB-indented line), then an empty line. only, if non-empty, restricts the
// attributes shown.
func writeList(w io.Writer, objs []model.ConfigObject, only []model.ManagerAttr) {
	for _, o := range objs {
		fmt.Fprintf(w, "%s %s\n", o.Type, o.Name)
		for _, it := range o.Items {
			if !wanted(it.Name, only) {
				continue
			}
			qmgrFold(w, "    "+it.Name+" = ", strings.Join(it.Values, ","))
		}
		fmt.Fprintln(w)
	}
}

func wanted(name string, only []model.ManagerAttr) bool {
	if len(only) == 0 {
		return true
	}
	for _, a := range only {
		if a.Key() == name || (a.Resource == "" && strings.HasPrefix(name, a.Name+".")) {
			return true
		}
	}
	return false
}

// qmgrFold writes prefix+value, breaking after a comma once the line
// has reached 80 columns.
func qmgrFold(w io.Writer, prefix, value string) {
	var b strings.Builder
	b.WriteString(prefix)
	col := len(prefix)
	parts := strings.Split(value, ",")
	for i, p := range parts {
		b.WriteString(p)
		col += len(p)
		if i < len(parts)-1 {
			b.WriteByte(',')
			col++
			if col >= 80 {
				b.WriteString("\n\t")
				col = 8
			}
		}
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}

// quoteValue quotes a value for print when qmgr would not read it back
// bare: empty, or holding a blank, comma, quote, "#", ";", a line break, a
// backslash (a trailing one continues the line), a "[" without its "]",
// or other white space at either end (qmgr trims a directive's ends).
// Double quotes are used, single ones when the value holds a double quote,
// and quoted pieces are concatenated when it holds both (qmgr joins
// adjacent quoted pieces into one value).
func quoteValue(v string) string {
	open := strings.LastIndexByte(v, '[')
	if v != "" && !strings.ContainsAny(v, " \t,\"'#;\n\r\\") && (open < 0 || strings.Contains(v[open:], "]")) && strings.TrimSpace(v) == v {
		return v
	}
	if !strings.Contains(v, `"`) {
		return `"` + v + `"`
	}
	if !strings.Contains(v, "'") {
		return "'" + v + "'"
	}
	var b strings.Builder
	for i, piece := range strings.Split(v, `"`) {
		if i > 0 {
			b.WriteString(`'"'`)
		}
		if piece != "" {
			b.WriteString(`"` + piece + `"`)
		}
	}
	return b.String()
}

// writeSets writes the replayable "set" lines of one object: one "=" line
// and a "+=" line per further list element. Read-only items are skipped.
func writeSets(w io.Writer, object, name string, o model.ConfigObject) {
	target := object
	if name != "" {
		target += " " + name
	}
	for _, it := range o.Items {
		vals := it.Replayed()
		if vals == nil {
			continue
		}
		if object == "hook" && it.Name == "event" && len(vals) == 1 && vals[0] == `""` {
			continue
		}
		for i, v := range vals {
			op := "="
			if i > 0 {
				op = "+="
			}
			fmt.Fprintf(w, "set %s %s %s %s\n", target, it.Name, op, quoteValue(v))
		}
	}
}

func banner(w io.Writer, lines ...string) {
	fmt.Fprintln(w, "#")
	for _, l := range lines {
		fmt.Fprintln(w, "# "+l)
	}
	fmt.Fprintln(w, "#")
}

func printResources(w io.Writer, objs []model.ConfigObject) {
	if len(objs) == 0 {
		return
	}
	banner(w, "Create resources and set their properties.")
	for _, o := range objs {
		banner(w, "Create and define resource "+o.Name)
		fmt.Fprintf(w, "create resource %s\n", o.Name)
		writeSets(w, "resource", o.Name, o)
	}
}

func printQueues(w io.Writer, objs []model.ConfigObject) {
	if len(objs) == 0 {
		return
	}
	banner(w, "Create queues and set their attributes.")
	for _, o := range objs {
		banner(w, "Create and define queue "+o.Name)
		fmt.Fprintf(w, "create queue %s\n", o.Name)
		writeSets(w, "queue", o.Name, o)
	}
}

func printServer(w io.Writer, o model.ConfigObject) {
	banner(w, "Set server attributes.")
	writeSets(w, "server", "", o)
}

func printSched(w io.Writer, o model.ConfigObject) {
	banner(w, "Set scheduler attributes.")
	writeSets(w, "sched", "", o)
}

// printNodes writes "create node N Mom=..." and the manager-set attributes.
func printNodes(w io.Writer, objs []model.ConfigObject) {
	banner(w, "Create nodes and set their properties.")
	for _, o := range objs {
		banner(w, "Create and define node "+o.Name)
		mom := ""
		for _, it := range o.Items {
			if it.Name == "Mom" && len(it.Values) > 0 && it.Values[0] != o.Name {
				mom = " Mom=" + it.Values[0]
			}
		}
		fmt.Fprintf(w, "create node %s%s\n", o.Name, mom)
		writeSets(w, "node", o.Name, o)
	}
}

// printHooks writes hooks with their scripts as base64 "import ... -"
// blocks, each ended by an empty line.
func printHooks(w io.Writer, objs []model.ConfigObject) {
	banner(w, "Create hooks and set their properties.")
	for _, o := range objs {
		banner(w, "Create and define hook "+o.Name)
		fmt.Fprintf(w, "create hook %s\n", o.Name)
		writeSets(w, "hook", o.Name, o)
		if o.Script != "" {
			fmt.Fprintf(w, "import hook %s %s base64 -\n%s\n", o.Name, o.ContentType, wrap64(o.Script))
		}
		if o.Config != "" {
			fmt.Fprintf(w, "import hook %s application/x-config base64 -\n%s\n", o.Name, wrap64(o.Config))
		}
	}
}

// wrap64 encodes s in base64 lines of 76 characters.
func wrap64(s string) string {
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	var b strings.Builder
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\n")
	return b.String()
}
