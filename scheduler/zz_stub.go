package scheduler

// Schedule is a placeholder until the scheduler branch lands.
func Schedule(s *Snapshot) *Plan { return &Plan{} }
