package server

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// Free-text attributes end up in accounting records, qstat output, mail
// headers and hook input, each a line-oriented format. A newline in
// Account_Name could forge an accounting record, so control characters are
// refused at submission and qalter (tab excepted, as PBS allows it in
// quoted values). Environment variables (Variable_List) are exempt: an
// exported shell function legitimately holds newlines, and they are never
// written to the accounting log.

// maxAttrLen bounds each free-text attribute value (bytes).
const maxAttrLen = 4096

// badText reports whether v holds a control character other than tab.
func badText(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return true
		}
	}
	return false
}

// checkText refuses a control character or an over-long value in the
// named attribute with "Illegal attribute or resource value <attr>".
func checkText(attr, v string) error {
	if len(v) > maxAttrLen || badText(v) {
		return model.Errorf(model.PBSEBadAttrVal, " %s", attr)
	}
	return nil
}

// textAttr is one attribute value to check; nil values (qalter fields not
// being changed) are skipped.
type textAttr struct {
	name string
	v    *string
}

func checkTexts(attrs ...textAttr) error {
	for _, a := range attrs {
		if a.v == nil {
			continue
		}
		if err := checkText(a.name, *a.v); err != nil {
			return err
		}
	}
	return nil
}

// checkResourceTexts applies checkText to -l names and values.
func checkResourceTexts(res map[string]string) error {
	for _, k := range model.SortedKeys(res) {
		if err := checkText("Resource_List."+k, k+res[k]); err != nil {
			return err
		}
	}
	return nil
}

// checkSubmitTexts validates the free-text fields of a submission.
func checkSubmitTexts(req *api.SubmitRequest) error {
	err := checkTexts(
		textAttr{"Job_Name", &req.Name}, textAttr{"queue", &req.Queue},
		textAttr{"Output_Path", &req.Output}, textAttr{"Error_Path", &req.Error},
		textAttr{"Join_Path", &req.Join}, textAttr{"Keep_Files", &req.Keep},
		textAttr{"Hold_Types", &req.Hold}, textAttr{"Shell_Path_List", &req.Shell},
		textAttr{"Account_Name", &req.Account}, textAttr{"project", &req.Project},
		textAttr{"Mail_Points", &req.MailPoints}, textAttr{"Mail_Users", &req.MailUsers},
		textAttr{"depend", &req.Depend}, textAttr{"group_list", &req.GroupList},
		textAttr{"array_indices_submitted", &req.ArrayIndices}, textAttr{"submit_host", &req.SubmitHost},
		textAttr{"stagein", &req.Stagein}, textAttr{"stageout", &req.Stageout},
		textAttr{"PBS_O_WORKDIR", &req.Workdir},
	)
	if err != nil {
		return err
	}
	return checkResourceTexts(req.Resources)
}

// checkAlterTexts validates the free-text fields of a qalter.
func checkAlterTexts(req *api.AlterRequest) error {
	err := checkTexts(
		textAttr{"Job_Name", req.Name}, textAttr{"Output_Path", req.Output}, textAttr{"Error_Path", req.Error},
		textAttr{"Join_Path", req.Join}, textAttr{"Keep_Files", req.Keep}, textAttr{"Hold_Types", req.Hold},
		textAttr{"Shell_Path_List", req.Shell}, textAttr{"Account_Name", req.Account}, textAttr{"project", req.Project},
		textAttr{"Mail_Points", req.MailPoints}, textAttr{"Mail_Users", req.MailUsers},
		textAttr{"depend", req.Depend}, textAttr{"group_list", req.GroupList},
		textAttr{"stagein", req.Stagein}, textAttr{"stageout", req.Stageout},
	)
	if err != nil {
		return err
	}
	return checkResourceTexts(req.Resources)
}
