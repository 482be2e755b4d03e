package pbscmd

import (
	"strings"
)

// writeFullBlock writes one object in the -f layout: "<header>", then one
// "    name = value" line per attribute (folded at commas before column 78,
// or unbroken when oneLine), then an empty line. qstat -f, and later
// qstat -Q -f, -B -f and pbs_rstat -f, share it.
func writeFullBlock(b *strings.Builder, header string, attrs []attr, oneLine bool) {
	b.WriteString(header)
	b.WriteByte('\n')
	for _, a := range attrs {
		if oneLine {
			writeOneLine(b, a.Name, a.Resource, a.Value)
		} else {
			writeFolded(b, a.Name, a.Resource, a.Value)
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
}

// writeDSVLine writes one object in -F dsv form: "<header><d>name=value<d>...",
// with the delimiter escaped inside values and newlines shown as \n.
func writeDSVLine(b *strings.Builder, header string, attrs []attr, delim string) {
	b.WriteString(header)
	for _, a := range attrs {
		b.WriteString(delim)
		b.WriteString(a.Name)
		if a.Resource != "" {
			b.WriteString("." + a.Resource)
		}
		b.WriteString("=" + escapeDelim(a.Value, delim))
	}
	b.WriteByte('\n')
}

// attrsJSON converts an attribute list to a cJSON object the way OpenPBS's
// -F json does: "x.y" resources become nested objects under "x",
// Variable_List becomes an object of name -> value, numbers become numbers.
func attrsJSON(attrs []attr) *jsonObject {
	o := newJSONObject()
	for _, a := range attrs {
		switch {
		case a.Env != nil:
			vars := newJSONObject()
			for _, e := range a.Env {
				vars.SetParsed(e.Name, e.Value)
			}
			o.Set(a.Name, vars)
		case a.Resource != "":
			sub, ok := o.vals[a.Name].(*jsonObject)
			if !ok {
				sub = newJSONObject()
				o.Set(a.Name, sub)
			}
			sub.SetParsed(a.Resource, a.Value)
		case a.AsString:
			o.Set(a.Name, a.Value)
		default:
			o.SetParsed(a.Name, a.Value)
		}
	}
	return o
}
