package rule

import (
	"math"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// quorumArgs are the parsed arguments shared by quorum and consensus.
type quorumArgs struct {
	values []ref.Val
	metric metric
	clique bool // mode "pairwise"/"clique"; "ball" otherwise
	tol    float64
	k      int
}

func parseQuorumArgs(values, metricV, mode, tol, k ref.Val) (quorumArgs, ref.Val) {
	var q quorumArgs
	var errv ref.Val
	if q.values, errv = listOf(values); errv != nil {
		return q, types.NewErr("values: %v", errv)
	}
	if q.metric, errv = parseMetric(metricV); errv != nil {
		return q, errv
	}
	if mode != nil {
		s, ok := mode.(types.String)
		if !ok {
			return q, types.NewErr("mode must be string, got %s", mode.Type().TypeName())
		}
		switch strings.ToLower(string(s)) {
		case "ball", "":
		case "pairwise", "clique":
			q.clique = true
		default:
			return q, types.NewErr("unsupported mode %q (use ball or pairwise)", string(s))
		}
	}
	if q.tol, errv = tolerance(tol); errv != nil {
		return q, errv
	}
	kf, ok := num(k)
	if !ok || math.IsNaN(kf) || kf < 1 {
		return q, types.NewErr("k must be >= 1, got %v", k.Value())
	}
	if kf > MaxListCap {
		kf = MaxListCap + 1 // never met, and safe to convert
	}
	q.k = int(kf)
	return q, nil
}

// selectSet returns the indexes (ascending) of the agreement set and the
// pairwise distance matrix it was chosen from.
func (q quorumArgs) selectSet() ([]int, [][]float64, ref.Val) {
	n := len(q.values)
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			x, errv := distance(q.metric, q.values[i], q.values[j])
			if errv != nil {
				return nil, nil, errv
			}
			d[i][j], d[j][i] = x, x
		}
	}
	var best []int
	for c := 0; c < n; c++ {
		var set []int
		if q.clique {
			set = []int{c}
			for j := 0; j < n; j++ {
				if j == c {
					continue
				}
				ok := true
				for _, s := range set {
					if d[j][s] > q.tol {
						ok = false
						break
					}
				}
				if ok {
					set = append(set, j)
				}
			}
			sortInts(set)
		} else {
			for j := 0; j < n; j++ {
				if d[c][j] <= q.tol {
					set = append(set, j)
				}
			}
		}
		if len(set) > len(best) {
			best = set
		}
	}
	return best, d, nil
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// fnQuorum is quorum(values, metric, [mode,] tol, k).
func fnQuorum(args ...ref.Val) ref.Val {
	var mode ref.Val
	if len(args) == 5 {
		mode, args = args[2], append([]ref.Val{args[0], args[1]}, args[3:]...)
	}
	q, errv := parseQuorumArgs(args[0], args[1], mode, args[2], args[3])
	if errv != nil {
		return types.NewErr("quorum: %v", errv)
	}
	set, _, errv := q.selectSet()
	if errv != nil {
		return types.NewErr("quorum: %v", errv)
	}
	return types.Bool(len(set) >= q.k)
}

// fnConsensus is consensus(values, metric, [mode,] agg, tol, k).
func fnConsensus(args ...ref.Val) ref.Val {
	var mode ref.Val
	if len(args) == 6 {
		mode, args = args[2], append([]ref.Val{args[0], args[1]}, args[3:]...)
	}
	aggV, ok := args[2].(types.String)
	if !ok {
		return types.NewErr("consensus: agg must be string, got %s", args[2].Type().TypeName())
	}
	agg := strings.ToLower(string(aggV))
	switch agg {
	case "medoid", "mode", "mean", "median":
	default:
		return types.NewErr("consensus: unsupported agg %q (use medoid, mode, mean or median)", string(aggV))
	}
	q, errv := parseQuorumArgs(args[0], args[1], mode, args[3], args[4])
	if errv != nil {
		return types.NewErr("consensus: %v", errv)
	}
	set, d, errv := q.selectSet()
	if errv != nil {
		return types.NewErr("consensus: %v", errv)
	}
	if len(set) < q.k || len(set) == 0 {
		return types.Double(0)
	}
	switch agg {
	case "medoid":
		bestI, bestSum := set[0], math.Inf(1)
		for _, i := range set {
			s := 0.0
			for _, j := range set {
				s += d[i][j]
			}
			if s < bestSum {
				bestI, bestSum = i, s
			}
		}
		return q.values[bestI]
	case "mode":
		counts := map[string]int{}
		first := map[string]int{}
		for _, i := range set {
			k := modeKey(q.values[i])
			if _, ok := first[k]; !ok {
				first[k] = i
			}
			counts[k]++
		}
		bestI, bestN := -1, 0
		for _, i := range set {
			k := modeKey(q.values[i])
			if first[k] != i {
				continue
			}
			if counts[k] > bestN {
				bestI, bestN = i, counts[k]
			}
		}
		return q.values[bestI]
	}
	xs := make([]float64, len(set))
	for n, i := range set {
		x, ok := num(q.values[i])
		if !ok {
			return types.NewErr("consensus: agg %q expects numeric values, got %s", agg, q.values[i].Type().TypeName())
		}
		xs[n] = x
	}
	if agg == "mean" {
		return types.Double(mean(xs))
	}
	return types.Double(median(xs))
}

// modeKey is the stable string key "mode" counts by: type and text.
func modeKey(v ref.Val) string {
	nv, err := fromCEL(v)
	if err != nil {
		return v.Type().TypeName() + ":?"
	}
	return v.Type().TypeName() + ":" + Text(nv)
}
