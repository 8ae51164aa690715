package text

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Short shortens a hex digest or revision to n characters plus "…" (a digest is compared by its
// head on screen; the full value is in the report).
func Short(hex string, n int) string {
	if len(hex) <= n {
		return hex
	}
	return hex[:n] + "…"
}

// Dur formats an elapsed time compactly: "850ms", "1.9s", "2m03s", "1h02m".
func Dur(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// VirtualTime formats a virtual-time instant given in milliseconds, in seconds.
func VirtualTime(ms float64) string {
	if ms < 10_000 {
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return fmt.Sprintf("%.0f s", ms/1000)
}

// Bytes formats a size in bytes with a binary-prefix unit: "12.3 MB" style (base 1024).
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Growth formats the relative change from old to new as a signed percentage ("+0.8%").
func Growth(old, new int64) string {
	if old <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", 100*(float64(new)-float64(old))/float64(old))
}

// Ratio formats a timing ratio with three decimals; NaN (not computable yet) is "–".
func Ratio(r float64) string {
	if math.IsNaN(r) || r == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f", r)
}

var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// Spark renders counts as a sparkline scaled to the largest count. Zero is "·", not a space,
// so an empty bin reads as "nothing happened" rather than as missing data.
func Spark(counts []int) string {
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	var b strings.Builder
	for _, c := range counts {
		if c == 0 || top == 0 {
			b.WriteRune('·')
			continue
		}
		i := (c*len(sparkRunes) - 1) / top
		b.WriteRune(sparkRunes[min(i, len(sparkRunes)-1)])
	}
	return b.String()
}

// Plural returns "1 run" / "2 runs".
func Plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
