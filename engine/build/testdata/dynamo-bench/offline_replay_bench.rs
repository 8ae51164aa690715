fn helper() {}

fn canonical_capture_options(enabled: bool) -> ReplayCaptureOptions {
    ReplayCaptureOptions {
        capture_per_request: enabled,
        determinism: if enabled {
            ReplayDeterminism::CanonicalV1
        } else {
            ReplayDeterminism::Random
        },
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    let mut timing_writer = None;
    for iteration in 0..args.iterations {
        let trace = trace.clone();
        let call_start = Instant::now();
        let report = match args.serving_mode {
            ServingModeArg::Aggregated => simulate(trace)?,
            ServingModeArg::Disagg => simulate_disagg(trace)?,
        };
        let replay_call_ms = call_start.elapsed().as_secs_f64() * 1_000.0;
        if let Some(writer) = timing_writer.as_mut() {
            serde_json::to_writer(
                &mut *writer,
                &serde_json::json!({
                    "iteration": iteration,
                    "wall_time_ms": report.throughput.wall_time_ms,
                    "replay_call_ms": replay_call_ms,
                }),
            )?;
        }
    }
    if let Some(writer) = timing_writer.as_mut() {
        writer.flush()?;
    }
    Ok(())
}
