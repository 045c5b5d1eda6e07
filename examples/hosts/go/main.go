// An agent host in Go (standard library only) that uses mcp-bridge through either of its faces.
//
//	go run . [-call NAME -args JSON ...] -rest http://127.0.0.1:8808
//	go run . [-call NAME -args JSON ...] -stdio [COMMAND ...]
//
// It lists the tools, builds a Tool value for each from its input schema (a Param per property with
// its type, description, required, default and enum, checked before anything is sent), calls the
// tools named with -call, and shows the status of the upstream servers.
//
// -rest URL speaks the REST face of `mcp-bridge serve --http`: GET /tools?format=mcp, POST /tools/NAME,
// GET /status (with the admin token). Tokens come from MCP_BRIDGE_TOKEN and MCP_BRIDGE_ADMIN_TOKEN.
//
// -stdio COMMAND... starts an MCP server and speaks newline-delimited JSON-RPC on its stdin and stdout:
// `mcp-bridge attach` (one shared fleet of upstream servers) or `mcp-bridge serve --stdio`. Without a
// command, MCP_BRIDGE_COMMAND (split at spaces) or `mcp-bridge serve --stdio`. -stdio comes last.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

// Face is what the host needs of mcp-bridge; the REST face and MCP over stdio both provide it.
type Face interface {
	ListTools() ([]ToolDefinition, error)
	Call(name string, arguments map[string]any) (*CallResult, error)
	// Status is nil when this face may not see it (REST without the admin token).
	Status() (*Status, error)
	Close()
}

// ToolDefinition is a tool as MCP lists it (the fields this host reads).
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// CallResult is a tools/call result; the REST face answers the same fields.
type CallResult struct {
	Content           []map[string]any `json:"content"`
	StructuredContent any              `json:"structuredContent,omitempty"`
	IsError           bool             `json:"isError"`
}

// Status is the JSON of `mcp-bridge://status` and of GET /status.
type Status struct {
	Servers []struct {
		Name      string `json:"name"`
		State     string `json:"state"`
		ToolCount int    `json:"toolCount"`
		LastError *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"lastError"`
	} `json:"servers"`
}

// GatewayError is a refusal by the gateway or the server behind it: HTTP status (0 over stdio), code, why.
type GatewayError struct {
	Status     int
	Code       string
	Message    string
	RetryAfter int
}

func (e *GatewayError) Error() string { return e.Message }

func main() {
	var calls []string
	var argsList []string
	rest := flag.String("rest", "", "base URL of `mcp-bridge serve --http`")
	stdio := flag.Bool("stdio", false, "start the MCP server COMMAND given after the flags")
	settleFor := flag.Duration("settle", 30*time.Second, "how long to wait for connecting servers")
	flag.Func("call", "a tool to call (repeatable; with -args)", func(v string) error {
		calls = append(calls, v)
		argsList = append(argsList, "{}")
		return nil
	})
	flag.Func("args", "the JSON arguments of the -call before it", func(v string) error {
		if len(argsList) == 0 {
			return errors.New("-args needs a -call before it")
		}
		argsList[len(argsList)-1] = v
		return nil
	})
	flag.Parse()

	var face Face
	var err error
	switch {
	case *rest != "" && !*stdio:
		face = NewRestFace(*rest, os.Getenv("MCP_BRIDGE_TOKEN"), os.Getenv("MCP_BRIDGE_ADMIN_TOKEN"))
	case *stdio && *rest == "":
		command := flag.Args()
		if len(command) == 0 {
			command = strings.Fields(os.Getenv("MCP_BRIDGE_COMMAND"))
		}
		if len(command) == 0 {
			command = []string{"mcp-bridge", "serve", "--stdio"}
		}
		face, err = NewStdioFace(command)
	default:
		fmt.Fprintln(os.Stderr, "usage: host [-call NAME -args JSON ...] (-rest URL | -stdio [COMMAND ...])")
		os.Exit(2)
	}
	if err == nil {
		err = run(face, calls, argsList, *settleFor)
		face.Close()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcp-bridge failed: %s\n", clean(err.Error()))
		os.Exit(1)
	}
}

func run(face Face, calls, argsList []string, settleFor time.Duration) error {
	if err := settle(face, settleFor); err != nil {
		return err
	}
	definitions, err := face.ListTools()
	if err != nil {
		return err
	}
	tools := map[string]*Tool{}
	fmt.Printf("tools (%d):\n", len(definitions))
	for _, definition := range definitions {
		tool, err := NewTool(face, definition)
		if err != nil {
			return err
		}
		tools[tool.Name] = tool
		fmt.Println("  " + clean(tool.Signature()))
		if line := firstLine(tool.Description); line != "" {
			fmt.Println("      " + clean(line))
		}
	}
	for i, name := range calls {
		var arguments map[string]any
		if err := json.Unmarshal([]byte(argsList[i]), &arguments); err != nil {
			return fmt.Errorf("-args of %s is not a JSON object: %w", name, err)
		}
		showCall(tools, name, arguments)
	}
	status, err := face.Status()
	if err != nil {
		return err
	}
	showStatus(status)
	return nil
}

// settle waits (bounded) while an upstream server is still connecting: the gateway answers at once.
func settle(face Face, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		status, err := face.Status()
		if err != nil || status == nil || time.Now().After(deadline) {
			return err
		}
		busy := false
		for _, server := range status.Servers {
			busy = busy || server.State == "connecting"
		}
		if !busy {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func showCall(tools map[string]*Tool, name string, arguments map[string]any) {
	encoded, _ := json.Marshal(arguments)
	fmt.Printf("call %s %s\n", name, encoded)
	tool, ok := tools[name]
	if !ok {
		fmt.Printf("  refused (host): no tool named %s\n", name)
		return
	}
	result, err := tool.Call(arguments)
	var argumentErr *ArgumentError
	var gatewayErr *GatewayError
	switch {
	case errors.As(err, &argumentErr):
		fmt.Println("  refused (host): " + clean(argumentErr.Error()))
	case errors.As(err, &gatewayErr):
		status := fmt.Sprintf("JSON-RPC %s", gatewayErr.Code)
		if gatewayErr.Status != 0 {
			status = fmt.Sprintf("%d %s", gatewayErr.Status, gatewayErr.Code)
		}
		after := ""
		if gatewayErr.RetryAfter > 0 {
			after = fmt.Sprintf(" (retry after %d s)", gatewayErr.RetryAfter)
		}
		fmt.Printf("  refused (%s): %s%s\n", status, clean(gatewayErr.Message), after)
	case err != nil:
		fmt.Println("  failed: " + clean(err.Error()))
	default:
		label := "-> "
		if result.IsError {
			label = "error: "
		}
		fmt.Println("  " + label + strings.ReplaceAll(clean(resultText(result)), "\n", "\n     "))
		if result.StructuredContent != nil {
			structured, _ := json.Marshal(result.StructuredContent)
			fmt.Println("     structured: " + clean(string(structured)))
		}
	}
}

func showStatus(status *Status) {
	if status == nil {
		fmt.Println("status: not shown (the REST face needs the admin token: MCP_BRIDGE_ADMIN_TOKEN)")
		return
	}
	fmt.Println("status:")
	for _, server := range status.Servers {
		line := fmt.Sprintf("  %s: %s, %d tools", server.Name, server.State, server.ToolCount)
		if server.LastError != nil {
			line += fmt.Sprintf(" - %s: %s", server.LastError.Code, server.LastError.Message)
		}
		fmt.Println(clean(line))
	}
}

func resultText(result *CallResult) string {
	var parts []string
	for _, block := range result.Content {
		if block["type"] == "text" {
			text, _ := block["text"].(string)
			parts = append(parts, text)
			continue
		}
		detail, _ := block["mimeType"].(string)
		if detail == "" {
			detail, _ = block["uri"].(string)
		}
		parts = append(parts, fmt.Sprintf("[%v %s]", block["type"], detail))
	}
	if len(parts) == 0 && result.StructuredContent != nil {
		structured, _ := json.Marshal(result.StructuredContent)
		parts = append(parts, string(structured))
	}
	return strings.Join(parts, "\n")
}

func firstLine(text string) string {
	return strings.TrimSpace(strings.SplitN(strings.TrimSpace(text), "\n", 2)[0])
}

// clean strips control characters from server text before it reaches the terminal (newlines stay).
func clean(text string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return -1
		}
		return r
	}, text)
}
