// Package mocker is the embedded reference replay engine behind `kvparity replay`: a
// virtual-time simulator of Dynamo's mocker (vLLM, SGLang, TRT-LLM schedulers, the KV-overlap
// router, aggregated and disaggregated serving) that speaks the flags and writes the files of
// Dynamo's offline_replay_bench.
package mocker
