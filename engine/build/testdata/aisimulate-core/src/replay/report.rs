use uuid::Uuid;

#[derive(Clone, Copy)]
pub enum ReplayRequestPool {
    Agg,
    Prefill,
    Decode,
}

impl TraceCollector {
    pub(crate) fn on_route_immediate(
        &mut self,
        uuid: Uuid,
        pool: ReplayRequestPool,
        logical_worker_id: usize,
        scheduler_id: usize,
        dp_rank: u32,
    ) {
        let Some(detail) = self.detail_mut(uuid) else {
            return;
        };
        detail.routing_history.push(pool);
    }

    pub(crate) fn on_route_released(
        &mut self,
        uuid: Uuid,
        pool: ReplayRequestPool,
        at_ms: f64,
        logical_worker_id: usize,
        scheduler_id: usize,
        dp_rank: u32,
    ) {
        let Some(detail) = self.detail_mut(uuid) else {
            return;
        };
        detail.released(pool, at_ms);
    }

    pub(crate) fn on_pool_admission_with_tier_attribution(
        &mut self,
        uuid: Uuid,
        pool: ReplayRequestPool,
        at_ms: f64,
    ) {
        let Some(detail) = self.detail_mut(uuid) else {
            return;
        };
        detail.admission_history.push(at_ms);
    }
}
