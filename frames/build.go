package frames

// surfaceFlingerTGID is the process that emits the VSYNC counters
// (SurfaceFlinger), or, failing that, the process of a thread named
// surfaceflinger; 0 when neither is present.
func surfaceFlingerTGID(evs []Event) int32 {
	for _, e := range evs {
		if e.Kind == Counter && isVsyncName(e.Name) && e.TGID != 0 {
			return e.TGID
		}
	}
	for _, e := range evs {
		if (e.Comm == "surfaceflinger" || e.Comm == "SurfaceFlinger") && e.TGID != 0 {
			return e.TGID
		}
	}
	return 0
}

func isVsyncName(n string) bool {
	return n == "VSYNC" || n == "VSYNC-sf" || n == "VSYNC-app" || len(n) > 9 && n[:9] == "HW_VSYNC_"
}
