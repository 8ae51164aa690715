// Package determinism is protocol stage 2 (determinism) and stage 4 (byte parity): each arm's
// repetitions, each a fresh process pinned to its own CPU set (the size a preflight measured),
// then the row's perturbed repetitions, then the verdicts (STABLE, UNSTABLE, BLOCKED per arm;
// parity's PASS or FAIL) and stage 4's retention of the full reports. It runs through the
// campaign's engine.StageHost: the running stage, the arms' pins, the runner, the journal's
// appends and its fold, the events. The vocabulary (run kinds, records, ArmResult, the
// fold's judgement of repetitions, preflights and perturbations) is the core's, which the
// journal folds and every surface reads; this package does the work.
//
// It imports engine for the host and that vocabulary, verdict for the words it decides in,
// and internal/atomicfile to write the preflight's trace head inside the campaign only.
package determinism
