package policy

func ParseNodeSortKeys(s []string) ([]NodeSortKey, error) { return nil, nil }
func DefaultNodeSortKeys() []NodeSortKey                  { return nil }
