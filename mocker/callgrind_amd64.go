package mocker

// callgrindToggleCollect toggles callgrind's event collection on the calling thread (a client
// request; a no-op outside valgrind). timedRegion calls it around the replay loop.
func callgrindToggleCollect()
