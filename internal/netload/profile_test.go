package netload

import "testing"

func TestProfileOverride(t *testing.T) {
	game, err := LookupProfile("game")
	if err != nil {
		t.Fatal(err)
	}
	rate, size := 64.0, 200
	for _, c := range []struct {
		name string
		rate *float64
		size *int
		want Profile
	}{
		{"none", nil, nil, game},
		{"rate", &rate, nil, Profile{RatePPS: 64, Size: 256}},
		{"size", nil, &size, Profile{RatePPS: 128, Size: 200}},
		{"both", &rate, &size, Profile{RatePPS: 64, Size: 200}},
	} {
		got := game.Override(c.rate, c.size)
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	// A rate given equal to the profile's still says it was chosen.
	same := 128.0
	if got := game.Override(&same, nil); got.Name != "" {
		t.Errorf("an explicit --rate kept the name %q", got.Name)
	}
}
