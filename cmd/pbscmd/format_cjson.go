package pbscmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// jsonObject is an ordered JSON object. PBS's -F json output is written by
// cJSON, whose layout (tab indentation, "key":<TAB>value, arrays on one line)
// differs from encoding/json, and whose key order is insertion order; users
// diff these outputs, so we reproduce the layout rather than use
// encoding/json.
type jsonObject struct {
	keys []string
	vals map[string]any
}

// jsonNumber is a number already in its printed form.
type jsonNumber string

func newJSONObject() *jsonObject { return &jsonObject{vals: map[string]any{}} }

// Set adds or replaces key. Values may be string, jsonNumber, int, int64,
// bool, *jsonObject or []any.
func (o *jsonObject) Set(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// SetParsed adds a PBS attribute value the way pbs_json_insert_parsed does:
// a value that reads as a number becomes a JSON number, anything else
// (including "True") a string.
func (o *jsonObject) SetParsed(key, value string) { o.Set(key, parsedJSON(value)) }

// Len is the number of keys.
func (o *jsonObject) Len() int { return len(o.keys) }

// isJSONNumber accepts what strtod would read completely, limited to plain
// decimal notation (-?D+(.D+)?([eE][-+]?D+)?): "0x10", "inf" or "nan" stay
// strings on purpose. A loop rather than a package-level regexp, whose
// compilation every PBS command process would pay at start.
func isJSONNumber(v string) bool {
	i := 0
	digits := func() bool {
		start := i
		for i < len(v) && '0' <= v[i] && v[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(v) && v[i] == '-' {
		i++
	}
	if !digits() {
		return false
	}
	if i < len(v) && v[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '-' || v[i] == '+') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(v)
}

// parsedJSON converts a value to a JSON number when it is one.
func parsedJSON(v string) any {
	if !isJSONNumber(v) {
		return v
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(f, 0) {
		return v
	}
	return jsonNumber(formatCJSONNumber(f))
}

// formatCJSONNumber prints a double as cJSON does: integers without a
// fraction, other values in the shortest form that reads back the same.
func formatCJSONNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// String renders the object as a complete cJSON document with a final newline.
func (o *jsonObject) String() string {
	var b strings.Builder
	writeCJSON(&b, o, 1)
	b.WriteByte('\n')
	return b.String()
}

// writeCJSON writes v at the given depth (1 for the top-level object).
func writeCJSON(b *strings.Builder, v any, depth int) {
	switch x := v.(type) {
	case *jsonObject:
		b.WriteString("{\n")
		for i, k := range x.keys {
			b.WriteString(strings.Repeat("\t", depth))
			b.WriteString(quoteCJSON(k))
			b.WriteString(":\t")
			writeCJSON(b, x.vals[k], depth+1)
			if i < len(x.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("\t", depth-1))
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeCJSON(b, e, depth+1)
		}
		b.WriteByte(']')
	case string:
		b.WriteString(quoteCJSON(x))
	case jsonNumber:
		b.WriteString(string(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		b.WriteString(quoteCJSON(fmt.Sprint(x)))
	}
}

// quoteCJSON quotes a string with cJSON's escapes: \" \\ \b \f \n \r \t and
// \u00XX for other control characters; '/' and non-ASCII pass through.
func quoteCJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
