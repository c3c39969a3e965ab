package model

// ProgressFunc receives the progress of a timing run: the simulated cycle
// reached, the CTAs dispatched so far and the grid's CTAs. Run calls it
// from its own goroutine every 64 quanta (Options.Progress); it must be
// quick and must not touch the simulation.
type ProgressFunc func(cycle Time, dispatched, total int)

// report calls f when set.
func (f ProgressFunc) report(cycle Time, dispatched, total int) {
	if f != nil {
		f(cycle, dispatched, total)
	}
}
