package replay

// ConcurrentSafe exposes concurrentSafe to the external tests.
func ConcurrentSafe(c *Code) (bool, string) { return concurrentSafe(c) }
