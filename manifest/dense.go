package manifest

// denseMap maps integer keys to values: in a slice indexed by the key
// while keys stay below a bound that grows with the entries held (ids
// and regions a writer numbers from 0 fill it densely), in a map for the
// rest (negative keys, and keys far beyond the entries, as an edited
// manifest may hold), so that memory stays proportional to the entries.
type denseMap[V any] struct {
	vals   []V
	has    []bool
	n      int // entries held
	sparse map[int64]V
}

// denseMin is the key below which the slice is always used.
const denseMin = 1 << 16

func (m *denseMap[V]) dense(k int64) bool {
	return k >= 0 && (k < denseMin || k < 4*int64(m.n+1))
}

// get returns the value of key k and whether k is held.
func (m *denseMap[V]) get(k int64) (V, bool) {
	if k >= 0 && k < int64(len(m.vals)) && m.has[k] {
		return m.vals[k], true
	}
	v, ok := m.sparse[k]
	return v, ok
}

// put sets the value of key k.
func (m *denseMap[V]) put(k int64, v V) {
	if k >= 0 && k < int64(len(m.vals)) {
		if !m.has[k] {
			if _, ok := m.sparse[k]; ok {
				m.sparse[k] = v // held there since before the slice reached it
				return
			}
			m.has[k] = true
			m.n++
		}
		m.vals[k] = v
		return
	}
	if m.dense(k) {
		if _, ok := m.sparse[k]; !ok {
			n := max(int(k)+1, 2*len(m.vals), 1024)
			vals, has := make([]V, n), make([]bool, n)
			copy(vals, m.vals)
			copy(has, m.has)
			m.vals, m.has = vals, has
			m.vals[k], m.has[k] = v, true
			m.n++
			return
		}
	}
	if m.sparse == nil {
		m.sparse = map[int64]V{}
	}
	if _, ok := m.sparse[k]; !ok {
		m.n++
	}
	m.sparse[k] = v
}
