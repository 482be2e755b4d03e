package server

import (
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// convertNodes turns the old "-l nodes=N:ppn=P[:prop]+...[#excl]" form into
// the select and place PBS derives from it: each element becomes a chunk
// "N:ncpus=P:mpiprocs=P[:prop=True]" (a host name instead of N becomes
// host=NAME), place is scatter, and #excl adds excl.
func convertNodes(spec string) (sel, place string, err error) {
	bad := model.Errorf(model.PBSEBadAttrVal, " Resource_List.nodes")
	place = model.PlaceScatter
	body, flags, hasFlags := strings.Cut(spec, "#")
	if hasFlags {
		for _, f := range strings.Split(flags, "#") {
			switch f {
			case "excl":
				place += ":" + model.SharingExcl
			case "shared":
			default:
				return "", "", bad
			}
		}
	}
	var chunks []string
	for _, elem := range strings.Split(body, "+") {
		fields := strings.Split(elem, ":")
		// Blanks would end up in the select, which then fails with an
		// error about select instead of nodes (FuzzConvertNodes).
		if fields[0] == "" || strings.ContainsAny(elem, " \t") {
			return "", "", bad
		}
		count, host := 1, ""
		if n, err := strconv.Atoi(fields[0]); err == nil {
			if n < 1 {
				return "", "", bad
			}
			count = n
		} else {
			host = fields[0]
		}
		ppn := 1
		var props []string
		for _, f := range fields[1:] {
			switch {
			case strings.HasPrefix(f, "ppn="):
				n, err := strconv.Atoi(strings.TrimPrefix(f, "ppn="))
				if err != nil || n < 1 {
					return "", "", bad
				}
				ppn = n
			case f == "" || strings.Contains(f, "="):
				return "", "", bad
			default:
				props = append(props, f+"=True")
			}
		}
		c := strconv.Itoa(count) + ":ncpus=" + strconv.Itoa(ppn) + ":mpiprocs=" + strconv.Itoa(ppn)
		if host != "" {
			c += ":host=" + host
		}
		for _, p := range props {
			c += ":" + p
		}
		chunks = append(chunks, c)
	}
	return strings.Join(chunks, "+"), place, nil
}
