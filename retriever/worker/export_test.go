package worker

// Files is how many files the snapshot holds.
func (s *Snapshot) Files() int { return len(s.files) }
