package validation

import "testing"

func TestParseCronSchedule(t *testing.T) {
	tests := []struct {
		spec string
		want string
	}{
		{spec: "*/5 * * * *"},
		{spec: "0-5 1,2 1-31/2 jan-dec mon-fri"},
		{spec: "@hourly"},
		{spec: "@every 1h"},
		{spec: "TZ=UTC 0 * * * *"},
		{spec: "not a schedule", want: "expected exactly 5 fields, found 3: [not a schedule]"},
		{spec: "70 * * * *", want: "end of range (70) above maximum (59): 70"},
		{spec: "* * 0 * *", want: "beginning of range (0) below minimum (1): 0"},
		{spec: "5-1 * * * *", want: "beginning of range (5) beyond end of range (1): 5-1"},
		{spec: "0-5/0 * * * *", want: "step of range should be a positive number: 0-5/0"},
		{spec: "x * * * *", want: `failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax`},
		{spec: "@often", want: "unrecognized descriptor: @often"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			err := parseCronSchedule(tc.spec)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("parseCronSchedule(%q) = %q, want %q", tc.spec, got, tc.want)
			}
		})
	}
}
