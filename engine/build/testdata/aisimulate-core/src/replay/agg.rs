// A reduced copy of the runtime's drive loop, as the published crate has it.
impl<P, E, M> RuntimeImpl<P, E, M> {
    fn run_to_completion(&mut self) -> anyhow::Result<()> {
        while let ReplayStepOutcome::Settled { .. } = self.step()? {}
        if !self.drive_finalized {
            self.publish_final_telemetry_sample()?;
            self.drive_finalized = true;
        }
        Ok(())
    }
}
