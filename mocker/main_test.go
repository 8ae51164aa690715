package mocker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/report"
)

// TestMain lets the test binary stand in for `kvparity replay` in fresh-process tests: with
// KVPARITY_MOCKER_EXEC=1 it runs Main on its arguments and exits.
func TestMain(m *testing.M) {
	if os.Getenv("KVPARITY_MOCKER_EXEC") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runMain runs Main in-process and returns exit code, stdout and stderr.
func runMain(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// runProcess runs the replay in a fresh process (this test binary re-executed), with
// GOMAXPROCS set when gomaxprocs != "".
func runProcess(t *testing.T, gomaxprocs string, args ...string) {
	t.Helper()
	if err := startProcess(gomaxprocs, args...); err != nil {
		t.Fatal(err)
	}
}

// startProcess is runProcess without a testing.T, safe to call from several goroutines.
func startProcess(gomaxprocs string, args ...string) error {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "KVPARITY_MOCKER_EXEC=1")
	if gomaxprocs != "" {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+gomaxprocs)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("replay process %v: %v\n%s", args, err, errb.String())
	}
	return nil
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// genTrace writes a generated conversation trace of n requests into dir.
func genTrace(t testing.TB, dir string, n int, seed int64) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.GenerateConversationTrace(&buf, n, seed); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "trace.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// canonicalRecord is the part of a canonical line the tests read.
type canonicalRecord struct {
	Coverage struct {
		PerRequestRecords int `json:"per_request_records"`
		Pressure          struct {
			Records []struct {
				Ordinal      int      `json:"pressure_ordinal"`
				AtMs         float64  `json:"at_ms"`
				Pool         string   `json:"pool"`
				Kind         string   `json:"kind"`
				RequestUUID  string   `json:"request_uuid"`
				ReadmittedAt *float64 `json:"readmitted_at_ms"`
			} `json:"records"`
			VLLM   int `json:"vllm_preemptions_total"`
			SGLang int `json:"sglang_retractions_total"`
		} `json:"pressure"`
		KVIngest *struct {
			Batches    int            `json:"batches"`
			Events     int            `json:"events"`
			KindCounts map[string]int `json:"kind_counts"`
			Digest     string         `json:"blake3_256"`
		} `json:"kv_ingest"`
	} `json:"coverage"`
	Metadata struct {
		ReplayBench   bool   `json:"replay_bench"`
		SchemaVersion string `json:"schema_version"`
		Workload      struct {
			Digest string `json:"digest"`
		} `json:"workload"`
	} `json:"metadata"`
	PerRequest []perRequest     `json:"per_request"`
	Planner    *json.RawMessage `json:"planner"`
	Summary    map[string]any   `json:"summary"`
}

type perRequest struct {
	UUID                   string   `json:"uuid"`
	Arrival                float64  `json:"arrival_time_ms"`
	FirstAdmit             *float64 `json:"first_admit_ms"`
	Terminal               *float64 `json:"terminal_time_ms"`
	FirstToken             *float64 `json:"first_token_ms"`
	InputLength            int      `json:"input_length"`
	RequestedOutput        int      `json:"requested_output_length"`
	OutputLength           int      `json:"output_length"`
	Reused                 int      `json:"reused_input_tokens"`
	PrefillWorker          *int     `json:"prefill_worker_idx"`
	DecodeWorker           *int     `json:"decode_worker_idx"`
	PrefillAdmit           *float64 `json:"prefill_admit_ms"`
	SourceHeld             *float64 `json:"source_held_ms"`
	DestinationReserved    *float64 `json:"destination_reserved_ms"`
	DestinationActivated   *float64 `json:"destination_activated_ms"`
	DecodeAdmit            *float64 `json:"decode_admit_ms"`
	SourceReleased         *float64 `json:"source_released_ms"`
	AdmissionCount         int      `json:"admission_count"`
	ReadmissionCount       int      `json:"readmission_count"`
	PressureRecordOrdinals []int    `json:"pressure_record_ordinals"`
	TerminalStatus         string   `json:"terminal_status"`
	RoutingHistory         []struct {
		Pool       string   `json:"pool"`
		Outcome    string   `json:"outcome"`
		EnteredAt  *float64 `json:"queue_entered_at_ms"`
		ReleasedAt *float64 `json:"released_at_ms"`
		WaitMs     float64  `json:"queue_wait_ms"`
		Worker     *int     `json:"logical_worker_id"`
	} `json:"routing_history"`
	AdmissionHistory []struct {
		Pool          string  `json:"pool"`
		AtMs          float64 `json:"at_ms"`
		IsReadmission bool    `json:"is_readmission"`
	} `json:"admission_history"`
}

func readCanonical(t *testing.T, path string) (canonicalRecord, []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var rec canonicalRecord
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("canonical line does not parse: %v", err)
	}
	return rec, b
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
