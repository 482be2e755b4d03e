package pbscmd

import (
	"github.com/strata-hpc/strata/model"
)

// Exit statuses of the resource checks qsub makes before sending: the PBS
// error number mod 256, as the server would give for the same request.
const (
	exitBadAttrVal     = model.PBSEBadAttrVal % 256 // 166
	exitInvalNodePlace = 15110 % 256                // PBSE_INVALNODEPLACE
	exitPlaceNoSelect  = 15111 % 256                // PBSE_PLACENOSELECT
)

// durationResources and sizeResources are the job-wide resources whose
// syntax qsub can check without the server's resource definitions.
var (
	durationResources = []string{"walltime", "soft_walltime", "cput"}
	sizeResources     = []string{"mem", "vmem", "file"}
)

// checkResources makes qsub's client-side checks of the merged -l list, in
// OpenPBS's order: select syntax, place without select, old syntax mixed
// with select/place, then values of well-known resources.
func checkResources(r *resourceList) error {
	sel, hasSelect := r.get("select")
	_, hasPlace := r.get("place")
	if hasSelect {
		if err := model.CheckSelectSyntax(sel); err != nil {
			return errIllegalL
		}
	}
	if hasPlace && !hasSelect {
		return failErr(exitPlaceNoSelect, `Cannot have "place" without "select"`)
	}
	if hasSelect || hasPlace {
		builtin := model.BuiltinResources()
		for _, n := range r.names {
			if n == "nodes" || builtin[n].HostLevel() {
				return failErr(exitInvalNodePlace, `"-lresource=" cannot be used with "select" or "place", resource is: %s`, n)
			}
		}
	}
	for _, n := range durationResources {
		if v, ok := r.get(n); ok {
			if _, err := model.ParseDuration(v); err != nil {
				return badResourceValue(n)
			}
		}
	}
	for _, n := range sizeResources {
		if v, ok := r.get(n); ok {
			if _, err := model.ParseSize(v); err != nil {
				return badResourceValue(n)
			}
		}
	}
	return nil
}

func badResourceValue(name string) *cmdError {
	return failErr(exitBadAttrVal, "%s Resource_List.%s", model.Message(model.PBSEBadAttrVal), name)
}
