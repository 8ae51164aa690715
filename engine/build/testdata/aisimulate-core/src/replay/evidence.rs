impl ReplayEvidenceCollector {
    pub(crate) fn record_pressure(
        &mut self,
        at_ms: f64,
    ) -> Option<u64> {
        if !self.options.capture_canonical_evidence {
            return None;
        }
        self.pressure_records.push(at_ms);
        None
    }

    pub(crate) fn record_pressure_readmission(&mut self, at_ms: f64) {
        if !self.options.capture_canonical_evidence {
            return;
        }
    }
}
