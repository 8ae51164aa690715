# fixture-marker.sh: sourced by the scripts that remake a Dynamo-shaped checkout in a fixed
# folder every run (desk-loop.sh, bisect-fixture.sh). They delete only what they made: right
# after making the checkout they write a marker inside its .git (which neither git status nor
# kvparity's worktree snapshot reads), and a folder without it is refused, never deleted — a
# DESK_DIR or BISECT_DIR pointed at a real checkout's parent must not cost the checkout.

fixture_marker=".git/kvparity-fixture"

# fixture_clear DIR WHO VAR: removes DIR when a kvparity fixture script made it; exits 2 naming
# DIR, WHO (the script) and VAR (the variable choosing the folder) when DIR exists otherwise.
fixture_clear() {
	local dir="$1" who="$2" var="$3"
	if [[ -L "$dir" ]]; then
		echo "$who: $dir is a symbolic link: refusing to delete what it points to; set $var to another folder" >&2
		exit 2
	fi
	[[ -e "$dir" ]] || return 0
	if [[ ! -f "$dir/$fixture_marker" ]]; then
		echo "$who: $dir exists and was not made by $who (no $dir/$fixture_marker): refusing to delete it; set $var to another folder, or remove $dir yourself" >&2
		exit 2
	fi
	rm -rf "$dir"
}

# fixture_mark DIR WHO: marks DIR, just made by WHO, as its own to delete on the next run.
fixture_mark() {
	printf 'made by %s on %s: its next run deletes and remakes this checkout\n' "$2" "$(date -u +%FT%TZ)" >"$1/$fixture_marker"
}
