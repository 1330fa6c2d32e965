package harness

import (
	"fmt"
	"strconv"
	"strings"
)

// readyMessage is the msg of the single line portcullis logs once it serves.
const readyMessage = "portcullis is ready"

// readyLine is what the ready log line tells a client.
type readyLine struct {
	Address    string // https://127.0.0.1:PORT
	Kubeconfig string // path of the admin kubeconfig
}

// parseReadyLine extracts the address and kubeconfig from a log/slog text
// line such as
//
//	time=... level=INFO msg="portcullis is ready" address=https://127.0.0.1:6443 kubeconfig=/data/admin.kubeconfig
//
// It returns errNoReadyLine for any other line and errBadReadyLine when the
// message is there but the fields are not.
func parseReadyLine(line string) (readyLine, error) {
	fields := parseLogfmt(line)
	if fields["msg"] != readyMessage {
		return readyLine{}, errNoReadyLine
	}
	r := readyLine{Address: fields["address"], Kubeconfig: fields["kubeconfig"]}
	if !strings.HasPrefix(r.Address, "https://") || r.Kubeconfig == "" {
		return readyLine{}, fmt.Errorf("%w: no https address or kubeconfig in %q", errBadReadyLine, line)
	}
	return r, nil
}

// parseLogfmt splits a slog text line into its key=value pairs. Values are
// bare words or Go-quoted strings (slog quotes values with spaces or quotes).
// A malformed tail is ignored: the caller only looks for known keys.
func parseLogfmt(line string) map[string]string {
	fields := make(map[string]string)
	rest := line
	for {
		rest = strings.TrimLeft(rest, " ")
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return fields
		}
		key := rest[:eq]
		rest = rest[eq+1:]
		var value string
		if strings.HasPrefix(rest, `"`) {
			quoted, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return fields
			}
			value, err = strconv.Unquote(quoted)
			if err != nil {
				return fields
			}
			rest = rest[len(quoted):]
		} else {
			end := strings.IndexByte(rest, ' ')
			if end < 0 {
				end = len(rest)
			}
			value, rest = rest[:end], rest[end:]
		}
		fields[key] = value
	}
}
