// Package diffpane is the workbench's diff pane, a Bubble Tea v2 component over package diffview:
// the first divergence and the diagnosis on top, groups that expand and collapse,
// next/previous difference, a pointer filter, both values side by side with their differing
// characters highlighted, and the exception-record form and list.
//
// Model is a value type (value receiver Update) keeping the workbench's pane contract
// (package ui/pane): it embeds pane.Base for its box, focus and styles. The root forwards every
// message to it (it ignores what is not its own: OpenRequestedMsg, its load and save results,
// keys while it is focused) and every key while Capturing() is true. Its bindings are the diff
// section of the workbench's key map (keys.KeyMap.DiffPane) and its styles the workbench's
// (theme.Styles, its own roles in theme.Styles.Diff), so there is one key map and one palette;
// both packages are its siblings under ui/, so no arrow runs back up. Loading, diffing
// and writing exceptions.jsonl run in commands that capture values; Open bumps a generation
// so a slower, older load never overwrites a newer one.
//
// It imports diffview for the diff it shows, diffview/diagnose for its diagnosis, exceptions for
// the exception records it drafts, saves and deletes, ui/keys, ui/pane and ui/theme as its
// siblings, and verdict for the semantic verdict of the diff.
package diffpane
