package main

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Param describes one parameter of a tool, read from its input schema.
type Param struct {
	Name        string
	Types       []string // JSON types; empty means any
	Description string
	Required    bool
	Default     any // nil when the schema gives none
	HasDefault  bool
	Enum        []any
}

// Tool is a tool of the gateway as this host calls it: its parameters, checked before each call.
type Tool struct {
	Name        string
	Description string
	Params      []Param
	face        Face
}

// ArgumentError is a call the host refused before sending it: the arguments do not fit the schema.
type ArgumentError struct{ Message string }

func (e *ArgumentError) Error() string { return e.Message }

type propertySchema struct {
	Type        json.RawMessage `json:"type"`
	Description string          `json:"description"`
	Default     json.RawMessage `json:"default"`
	Enum        []any           `json:"enum"`
}

// NewTool reads a tool's input schema into Params, in the order the schema lists its properties.
func NewTool(face Face, definition ToolDefinition) (*Tool, error) {
	tool := &Tool{Name: definition.Name, Description: definition.Description, face: face}
	if len(definition.InputSchema) == 0 {
		return tool, nil
	}
	var schema map[string]json.RawMessage
	if json.Unmarshal(definition.InputSchema, &schema) != nil {
		return tool, nil // no object schema to read: the tool takes whatever the server accepts
	}
	var requiredNames []string
	_ = json.Unmarshal(schema["required"], &requiredNames)
	required := map[string]bool{}
	for _, name := range requiredNames {
		required[name] = true
	}
	names, properties, err := orderedProperties(schema["properties"])
	if err != nil {
		// Properties that are no JSON object: the tool takes whatever the server accepts.
		names, properties = nil, map[string]propertySchema{}
	}
	for _, name := range names {
		spec := properties[name]
		param := Param{Name: name, Description: spec.Description, Required: required[name], Enum: spec.Enum}
		var single string
		if json.Unmarshal(spec.Type, &single) == nil {
			param.Types = []string{single}
		} else {
			_ = json.Unmarshal(spec.Type, &param.Types)
		}
		if len(spec.Default) > 0 {
			param.HasDefault = json.Unmarshal(spec.Default, &param.Default) == nil
		}
		tool.Params = append(tool.Params, param)
	}
	return tool, nil
}

// orderedProperties decodes a JSON object keeping its key order (a Go map would lose it).
// A property whose schema is not what this host reads (not an object, an enum that is no list) is
// kept with what could be read: a server's odd schema must not stop the host.
func orderedProperties(raw json.RawMessage) ([]string, map[string]propertySchema, error) {
	properties := map[string]propertySchema{}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, properties, nil
	}
	var specs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &specs); err != nil {
		return nil, nil, err
	}
	for name, spec := range specs {
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(spec, &fields)
		var read propertySchema
		read.Type = fields["type"]
		read.Default = fields["default"]
		_ = json.Unmarshal(fields["description"], &read.Description)
		_ = json.Unmarshal(fields["enum"], &read.Enum)
		properties[name] = read
	}
	decoder := json.NewDecoder(strings.NewReader(string(raw)))
	var names []string
	depth := 0
	for {
		token, err := decoder.Token()
		if err != nil {
			break
		}
		switch value := token.(type) {
		case json.Delim:
			if value == '{' || value == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			// A key at depth 1 is a property name; its value follows and is skipped below.
			if depth == 1 {
				names = append(names, value)
				var skip json.RawMessage
				if err := decoder.Decode(&skip); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if len(names) != len(properties) {
		names = names[:0]
		for name := range properties {
			names = append(names, name)
		}
		sort.Strings(names)
	}
	return names, properties, nil
}

// TypeName is a parameter's type as shown: its enum values, else its JSON type(s), else any.
func (p Param) TypeName() string {
	if len(p.Enum) > 0 {
		shown := make([]string, len(p.Enum))
		for i, value := range p.Enum {
			encoded, _ := json.Marshal(value)
			shown[i] = string(encoded)
		}
		return strings.Join(shown, "|")
	}
	if len(p.Types) == 0 {
		return "any"
	}
	return strings.Join(p.Types, "|")
}

// Signature is `name(a: number, unit: "c"|"f" = "c", tags?: array)`: required, defaulted, optional.
func (t *Tool) Signature() string {
	shown := make([]string, len(t.Params))
	for i, p := range t.Params {
		switch {
		case p.Required:
			shown[i] = fmt.Sprintf("%s: %s", p.Name, p.TypeName())
		case p.HasDefault:
			encoded, _ := json.Marshal(p.Default)
			shown[i] = fmt.Sprintf("%s: %s = %s", p.Name, p.TypeName(), encoded)
		default:
			shown[i] = fmt.Sprintf("%s?: %s", p.Name, p.TypeName())
		}
	}
	return fmt.Sprintf("%s(%s)", t.Name, strings.Join(shown, ", "))
}

// Call checks the arguments (unknown, missing, type, enum), fills in defaults, and calls the tool.
func (t *Tool) Call(arguments map[string]any) (*CallResult, error) {
	known := map[string]bool{}
	sent := map[string]any{}
	for _, p := range t.Params {
		known[p.Name] = true
		value, given := arguments[p.Name]
		if !given {
			if p.Required {
				return nil, &ArgumentError{fmt.Sprintf("missing required argument %q", p.Name)}
			}
			if p.HasDefault {
				sent[p.Name] = p.Default
			}
			continue
		}
		if len(p.Enum) > 0 && !inEnum(value, p.Enum) {
			return nil, &ArgumentError{fmt.Sprintf("argument %q must be one of %s", p.Name, p.TypeName())}
		}
		if !fits(value, p.Types) {
			return nil, &ArgumentError{fmt.Sprintf("argument %q must be of type %s", p.Name, p.TypeName())}
		}
		sent[p.Name] = value
	}
	for name := range arguments {
		if !known[name] && len(t.Params) > 0 {
			return nil, &ArgumentError{fmt.Sprintf("unexpected argument %q", name)}
		}
	}
	return t.face.Call(t.Name, sent)
}

func inEnum(value any, enum []any) bool {
	encoded, _ := json.Marshal(value)
	for _, allowed := range enum {
		candidate, _ := json.Marshal(allowed)
		if string(candidate) == string(encoded) {
			return true
		}
	}
	return false
}

// fits says whether a decoded JSON value has one of the types (JSON numbers decode as float64).
func fits(value any, types []string) bool {
	if len(types) == 0 {
		return true
	}
	for _, kind := range types {
		switch v := value.(type) {
		case string:
			if kind == "string" {
				return true
			}
		case bool:
			if kind == "boolean" {
				return true
			}
		case float64:
			if kind == "number" || (kind == "integer" && v == math.Trunc(v)) {
				return true
			}
		case []any:
			if kind == "array" {
				return true
			}
		case map[string]any:
			if kind == "object" {
				return true
			}
		case nil:
			if kind == "null" {
				return true
			}
		}
	}
	return false
}
