package manager

import (
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// The value helpers apply one Attr to one typed field. Unset (Op "")
// restores the given default.

func setBool(dst *bool, a Attr, def bool) error {
	if a.Op == "" {
		*dst = def
		return nil
	}
	if a.Op != "=" {
		return badValue(a)
	}
	b, err := model.ParseBool(a.Value)
	if err != nil {
		return badValue(a)
	}
	*dst = b
	return nil
}

func setInt(dst *int64, a Attr, def, min int64) error {
	if a.Op == "" {
		*dst = def
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(a.Value), 10, 64)
	if err != nil {
		return badValue(a)
	}
	switch a.Op {
	case "+=":
		n = *dst + n
	case "-=":
		n = *dst - n
	}
	if n < min {
		return badValue(a)
	}
	*dst = n
	return nil
}

func setSmallInt(dst *int, a Attr, def, min, max int) error {
	v := int64(*dst)
	if err := setInt(&v, a, int64(def), int64(min)); err != nil {
		return err
	}
	if v > int64(max) {
		return badValue(a)
	}
	*dst = int(v)
	return nil
}

func setString(dst *string, a Attr, def string) error {
	if a.Op == "" {
		*dst = def
		return nil
	}
	if a.Op != "=" {
		return badValue(a)
	}
	*dst = a.Value
	return nil
}

// splitList splits a comma-separated value, dropping empty entries.
func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// setList applies =, += (add missing entries) or -= (remove entries).
func setList(dst *[]string, a Attr, check func(string) bool) error {
	if a.Op == "" {
		*dst = nil
		return nil
	}
	items := splitList(a.Value)
	for _, it := range items {
		if check != nil && !check(it) {
			return badValue(a)
		}
	}
	switch a.Op {
	case "=":
		*dst = dedupe(items)
	case "+=":
		*dst = dedupe(append(append([]string(nil), *dst...), items...))
	case "-=":
		var keep []string
		for _, x := range *dst {
			if !containsStr(items, x) {
				keep = append(keep, x)
			}
		}
		*dst = keep
	}
	return nil
}

func dedupe(in []string) []string {
	var out []string
	for _, x := range in {
		if !containsStr(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// setLimit applies a PBS limit list: = replaces, += adds or replaces
// entries for the same entity, -= removes them.
func setLimit(dst *string, a Attr) error {
	if a.Op == "" {
		*dst = ""
		return nil
	}
	in, err := model.ParseLimits(a.Value)
	if err != nil || len(in) == 0 {
		return badValue(a)
	}
	cur, _ := model.ParseLimits(*dst)
	switch a.Op {
	case "=":
		cur = in
	case "+=", "-=":
		var keep []model.Limit
		for _, c := range cur {
			replaced := false
			for _, n := range in {
				if n.Kind == c.Kind && n.Who == c.Who {
					replaced = true
				}
			}
			if !replaced {
				keep = append(keep, c)
			}
		}
		if a.Op == "+=" {
			keep = append(keep, in...)
		}
		cur = keep
	}
	*dst = model.FormatLimits(cur)
	return nil
}

// setResource sets or unsets one entry of a resource map (resources_max.X,
// default_chunk.X, resources_available.X). The resource must be defined;
// the value is stored in canonical form.
func setResource(dst *map[string]string, a Attr, defs model.ResourceDefs, hostLevelOnly bool) error {
	if a.Resource == "" {
		return badValue(a)
	}
	d, ok := defs[a.Resource]
	if !ok {
		return model.Errorf(model.PBSEUnknownResource, " %s", a.Key())
	}
	if hostLevelOnly && !d.HostLevel() {
		return badValue(a)
	}
	m := make(map[string]string, len(*dst)+1)
	for k, v := range *dst {
		m[k] = v
	}
	if a.Op == "" {
		delete(m, a.Resource)
		*dst = m
		return nil
	}
	var v string
	switch a.Op {
	case "=":
		norm, err := d.Normalize(a.Value)
		if err != nil {
			return badValue(a)
		}
		v = norm
	case "+=", "-=":
		if d.Type == model.TypeStringArray {
			list := splitList(m[a.Resource])
			la := Attr{Op: a.Op, Value: a.Value}
			if err := setList(&list, la, nil); err != nil {
				return badValue(a)
			}
			v = strings.Join(list, ",")
			break
		}
		if !d.Numeric() {
			return badValue(a)
		}
		cur, _ := d.Amount(m[a.Resource])
		norm, err := d.Normalize(a.Value)
		if err != nil {
			return badValue(a)
		}
		delta, _ := d.Amount(norm)
		if a.Op == "-=" {
			delta = -delta
		}
		if cur+delta < 0 {
			return badValue(a)
		}
		v, err = d.Normalize(formatAmountInput(d, cur+delta))
		if err != nil {
			return badValue(a)
		}
	default:
		return badValue(a)
	}
	if a.Resource == "soft_walltime" && model.SoftWalltimeOf(map[string]string{a.Resource: v}) == 0 {
		return badValue(a) // a zero default would refuse every job (OpenPBS refuses it too)
	}
	m[a.Resource] = v
	*dst = m
	return nil
}

// formatAmountInput writes an amount in a form Normalize accepts.
func formatAmountInput(d model.ResourceDef, v float64) string {
	switch d.Type {
	case model.TypeSize:
		return strconv.FormatInt(int64(v), 10) + "b"
	case model.TypeFloat:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatInt(int64(v), 10)
}
