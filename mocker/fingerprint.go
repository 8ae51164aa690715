package mocker

import "kvparity/report"

// workFingerprint is the timing line's work_fingerprint (report.WorkFingerprint): what this
// replay simulated, from the same totals the summary reports and the records the canonical
// report lists, computed after the timed region so the replay loop pays nothing for it.
func (rep *replayReport) workFingerprint() (jv, error) {
	var sum report.PlacementSum
	admissions := 0
	for _, rec := range rep.records {
		admissions += len(rec.admissions)
		for _, e := range rec.routing {
			if e.workerID < 0 {
				continue // queued and never released
			}
			if err := sum.Add(rec.uuid, e.pool, e.workerID, 0); err != nil {
				return jv{}, err
			}
		}
	}
	o := jobj()
	o.set("scheme", jstr(report.WorkScheme))
	o.set("duration_ms", jfloat(rep.durationMs))
	o.set("num_requests", jint(rep.num))
	o.set("completed_requests", jint(rep.completed))
	o.set("total_input_tokens", jint(rep.inTok))
	o.set("total_output_tokens", jint(rep.outTok))
	o.set("prefix_cache_reused_ratio", jfloat(rep.reuseRatio(rep.reused)))
	o.set("first_admission_prefix_cache_reused_ratio", jfloat(rep.reuseRatio(rep.firstReused)))
	o.set("pressure_events", jint(len(rep.sim.ev.pressures)))
	o.set("admissions", jint(admissions))
	o.set("placements", jint(int(sum.N)))
	o.set("placement_digest", jstr(sum.Hex()))
	return o.val(), nil
}
