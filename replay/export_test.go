package replay

// ConcurrentSafe exposes concurrentSafe to the external tests.
func ConcurrentSafe(c *Code) (bool, string) { return concurrentSafe(c) }

// LibdevEval evaluates built-in libdevice function fn on raw operands (for
// the external property test); refuse is non-empty when the result would
// depend on the link-time FTZ setting.
func LibdevEval(fn string, a [3]uint64) (uint64, string) { return libdevTable()[fn].eval(a) }
