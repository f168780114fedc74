package console

// Place is where the layered layout puts a node: its layer (column, left
// to right) and row (top to bottom).
type Place struct {
	Layer int `json:"layer"`
	Row   int `json:"row"`
}

// Layered lays out a directed graph left to right: a node's layer is its
// breadth-first depth from the roots (nodes without incoming edges, in the
// order of ids; in a cycle with no such node, the first node not placed),
// and rows follow a depth-first walk of the breadth-first tree, so that a
// node shares its first child's row and each further leaf takes a new row.
// Edges naming unknown nodes are ignored. The result has a place for every
// id.
func Layered(ids []string, edges [][2]string) map[string]Place {
	known := make(map[string]bool, len(ids))
	for _, id := range ids {
		known[id] = true
	}
	out := map[string][]string{}
	in := map[string]int{}
	for _, e := range edges {
		if known[e[0]] && known[e[1]] && e[0] != e[1] {
			out[e[0]] = append(out[e[0]], e[1])
			in[e[1]]++
		}
	}
	depth := make(map[string]int, len(ids))
	children := map[string][]string{}
	var order []string // tree roots, in discovery order
	bfs := func(root string) {
		depth[root] = 0
		order = append(order, root)
		queue := []string{root}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			for _, m := range out[n] {
				if _, seen := depth[m]; !seen {
					depth[m] = depth[n] + 1
					children[n] = append(children[n], m)
					queue = append(queue, m)
				}
			}
		}
	}
	for _, id := range ids {
		if _, seen := depth[id]; !seen && in[id] == 0 {
			bfs(id)
		}
	}
	for _, id := range ids {
		if _, seen := depth[id]; !seen {
			bfs(id)
		}
	}
	places := make(map[string]Place, len(ids))
	next := 0
	var walk func(n string)
	walk = func(n string) {
		row := next
		if len(children[n]) == 0 {
			next++
		}
		places[n] = Place{Layer: depth[n], Row: row}
		for _, c := range children[n] {
			walk(c)
		}
	}
	for _, r := range order {
		walk(r)
	}
	return places
}
