package server

import (
	"github.com/strata-hpc/strata/model"
)

// checkSoftWalltime applies OpenPBS's rules on Resource_List.soft_walltime
// to a job's resulting resource list (docs/scheduling.md): only managers
// may ask for one (qsub -l or qalter; resources_default and hooks may set
// it for anyone), it must be more than zero, and it may not exceed the
// walltime, whichever of the two a request changes.
func checkSoftWalltime(requested, list map[string]string, id *Identity, cfg *model.ServerConfig) error {
	if _, asked := requested["soft_walltime"]; asked && !isManager(id, cfg) {
		return model.Errorf(model.PBSEAttrRO, "Resource_List.soft_walltime")
	}
	s, ok := list["soft_walltime"]
	if !ok {
		return nil
	}
	soft, err := model.ParseDuration(s)
	if err != nil || soft <= 0 {
		return model.Errorf(model.PBSEBadAttrVal, " Resource_List.soft_walltime")
	}
	if w, ok := list["walltime"]; ok {
		if hard, err := model.ParseDuration(w); err == nil && soft > hard {
			return model.Errorf(model.PBSEBadAttrVal, " Resource_List.soft_walltime (exceeds walltime)")
		}
	}
	return nil
}
