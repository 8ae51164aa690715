package main

import "kvparity/mocker"

func init() {
	register("replay", "replay a Mooncake trace with the embedded engine (offline_replay_bench flags)", mocker.Main)
}
