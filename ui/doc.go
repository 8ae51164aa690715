// Package ui is the Bubble Tea workbench over a campaign (engine.Controller).
//
// The root Model routes messages and focus; it owns the status line, the footer and ? help,
// and frame pacing. Each pane is its own package with a value model keeping one contract
// (ui/pane.Pane: update, view, size, focus, help, styles): determinism, lifecycle, pressure,
// perf, logpane and diffpane (the diff pane and exception form), held in the registry
// (model.go) in tab order and laid out by bands (layout.go), both data; the header and
// artifacts lines are the root's chrome. Every engine event reaches every pane, and every
// command a pane returns is batched, never dropped. Keys (ui/keys) and styles (ui/theme) are
// defined once, the diff pane's included; a key named in a message or help text comes from its
// binding (keys.Name), never a letter in a string.
//
// No pane hides a line silently: what does not fit is counted in its title or on its edge
// lines, with the key that shows it (z zooms the focused pane). The workbench keeps its own
// choices (the diff pane's grouping) in the campaign folder's ui-state.json, written
// atomically and never outside that folder; the report never reads it.
//
// Engine events arrive through one re-armed command that drains whatever is waiting into one
// message, so a burst costs one Update. Update never calls anything that may block: Controller
// calls run in commands that capture values. View returns the frame composed on the last paced
// tick: at most 30 frames a second, at most 4 while a measured sample runs.
//
// # Adding a pane
//
// A pane is one new package, its registry line in model.go (and the import it needs), and,
// when it has keys of its own, their section in ui/keys; nothing in the root routes to a pane
// by name:
//
//  1. Write package ui/NAME with a value Model that embeds pane.Base (its box, focus and styles:
//     SetSize, Focus, Blur, Focused, SetStyles) and has Update(tea.Msg) (Model, tea.Cmd),
//     View() string and ShortHelp/FullHelp (help.KeyMap); its New calls SetStyles (Base.Styles
//     is a pointer, so the value every Update copies stays small). Update takes what is its
//     own, whatever has focus (every engine event reaches every pane), and keys only while
//     Focused; it returns its commands (the root batches them). View fits Width×Height
//     (text.Fit) and starts with Base.Title.
//  2. Bind its keys in its section of ui/keys (never a global key: keys_test holds the diff
//     pane's to that) and name a key in its words with keys.Name or the binding's help.
//  3. Give it the optional abilities it needs (ui/pane): Scroller for the wheel, Clicker for
//     clicks, Zoomer for its zoom mark, Clocked for elapsed times, Capturer for a text field,
//     Footer to lead the footer, HelpNoter for words under its keys in the ? overlay.
//  4. In model.go, its registry line: {build: func(st theme.Styles, km keys.KeyMap) pane.Pane
//     { p := NAME.New(st, km); return pane.Of(&p) }, name, title, band, wheel}. New makes
//     it; its place in the registry is its place in the tab order; its band is a band of
//     layout.go's bands (a band of three shares its width evenly; a new band is a line there
//     with its share). A built pane is held behind a pointer, so copies of the Model share
//     it (Bubble Tea keeps only the latest). Only a pane the root itself works with by field
//     (opens, follows the selection of) is a field of Model, reached with of instead of
//     build; one it focuses by name is found in the registry (registered).
//  5. Its package is in the imports test's room ui/* (engine, report, diffview, stats,
//     verdict, ui/*); a room of its own is a row in the rooms table.
//  6. It takes room on screen, so the goldens change: go test ./ui -run Golden -update, then
//     read them (and the titles the model tests expect of its band's neighbours).
//
// The root's own reactions to an event (words on the status line, opening the diff) stay in
// apply.go; the pane itself needs none. TestANewPaneIsOneRegistryEntry adds one.
//
// It imports engine for the Campaign it drives and the events it shows, the panes and helpers
// under ui/*, diffview for the sides and ids the diff slot names, verdict for the header's
// words and tones, and internal/atomicfile to write ui-state.json.
package ui
