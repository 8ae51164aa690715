use std::time::Instant;

impl Replayer {
    pub fn run(self) -> ReplayResult<ReplayReport> {
        self.run_inner(None)
    }

    fn run_inner(
        mut self,
        artifact_sink: Option<ReplayArtifactSink>,
    ) -> ReplayResult<ReplayReport> {
        let wall_start = Instant::now();
        let collector = match &self.spec.topology {
            ReplayTopology::Aggregated => {
                let runtime = compose();
                runtime.run().map_err(runtime_error)?.0
            }
            ReplayTopology::Disaggregated { .. } => {
                let runtime = compose_disagg();
                runtime.run().map_err(runtime_error)?.0
            }
        };
        let report = collector
            .finish()
            .with_wall_time_ms(wall_start.elapsed().as_secs_f64() * 1_000.0);
        Ok(report)
    }

    fn other(&self) {
        runtime.run().map_err(runtime_error)?.0
    }
}
