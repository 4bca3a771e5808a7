package buildinfo

// JSONVersion is the "rooftool_version" field of the JSON output; it
// changes when a key is renamed or removed or a value changes meaning.
const JSONVersion = 1

// JSONDoc is the JSON output of `rooftool version --format json`.
type JSONDoc struct {
	Version int `json:"rooftool_version"`
	Info
}

// JSON is the JSON output of the build i.
func (i Info) JSON() JSONDoc { return JSONDoc{Version: JSONVersion, Info: i} }
