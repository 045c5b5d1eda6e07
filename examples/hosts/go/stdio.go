package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

const protocolVersion = "2025-11-25"
const statusURI = "mcp-bridge://status"

// StdioFace speaks MCP to a server it starts: one JSON-RPC message per line on stdin and stdout.
type StdioFace struct {
	command *exec.Cmd
	stdin   io.WriteCloser
	writeMu sync.Mutex
	mu      sync.Mutex
	nextID  int
	pending map[int]chan rpcMessage
	done    chan struct{}
}

type rpcMessage struct {
	ID     *json.RawMessage `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			RetryAfterSeconds int `json:"retryAfterSeconds"`
		} `json:"data"`
	} `json:"error,omitempty"`
}

func NewStdioFace(command []string) (*StdioFace, error) {
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	face := &StdioFace{command: cmd, stdin: stdin, pending: map[int]chan rpcMessage{}, done: make(chan struct{})}
	go face.read(stdout)
	initialize := map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "go-host", "version": "1.0.0"},
	}
	if err := face.request("initialize", initialize, nil); err != nil {
		face.Close()
		return nil, err
	}
	return face, face.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

func (f *StdioFace) send(message any) error {
	line, err := json.Marshal(message)
	if err != nil {
		return err
	}
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	_, err = f.stdin.Write(append(line, '\n'))
	return err
}

func (f *StdioFace) read(stdout io.Reader) {
	defer close(f.done)
	scanner := bufio.NewScanner(stdout)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	for scanner.Scan() {
		var message rpcMessage
		if json.Unmarshal(scanner.Bytes(), &message) != nil || message.ID == nil {
			continue // a notification (list_changed, progress, log): this host does not need them
		}
		if message.Method != "" {
			// A request of the server's own: answer ping, decline what this host does not offer.
			answer := map[string]any{"jsonrpc": "2.0", "id": message.ID, "result": map[string]any{}}
			if message.Method != "ping" {
				delete(answer, "result")
				answer["error"] = map[string]any{"code": -32601, "message": "Method not found: " + message.Method}
			}
			_ = f.send(answer)
			continue
		}
		var id int
		if json.Unmarshal(*message.ID, &id) != nil {
			continue
		}
		f.mu.Lock()
		waiting := f.pending[id]
		delete(f.pending, id)
		f.mu.Unlock()
		if waiting != nil {
			waiting <- message
		}
	}
}

// request sends one request and decodes its result into `into` (nil: the result is not needed).
func (f *StdioFace) request(method string, params any, into any) error {
	f.mu.Lock()
	f.nextID++
	id := f.nextID
	answer := make(chan rpcMessage, 1)
	f.pending[id] = answer
	f.mu.Unlock()
	if err := f.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return err
	}
	select {
	case message := <-answer:
		if message.Error != nil {
			code := fmt.Sprint(message.Error.Code)
			return &GatewayError{0, code, message.Error.Message, message.Error.Data.RetryAfterSeconds}
		}
		if into == nil {
			return nil
		}
		return json.Unmarshal(message.Result, into)
	case <-f.done:
		return errors.New("the server closed its stdout")
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s got no answer in 60 s", method)
	}
}

func (f *StdioFace) ListTools() ([]ToolDefinition, error) {
	var tools []ToolDefinition
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page struct {
			Tools      []ToolDefinition `json:"tools"`
			NextCursor string           `json:"nextCursor"`
		}
		if err := f.request("tools/list", params, &page); err != nil {
			return nil, err
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			return tools, nil
		}
		cursor = page.NextCursor
	}
}

func (f *StdioFace) Call(name string, arguments map[string]any) (*CallResult, error) {
	var result CallResult
	err := f.request("tools/call", map[string]any{"name": name, "arguments": arguments}, &result)
	return &result, err
}

func (f *StdioFace) Status() (*Status, error) {
	var read struct {
		Contents []struct {
			Text string `json:"text"`
		} `json:"contents"`
	}
	if err := f.request("resources/read", map[string]any{"uri": statusURI}, &read); err != nil {
		return nil, err
	}
	if len(read.Contents) == 0 {
		return nil, errors.New("the status resource is empty")
	}
	var status Status
	return &status, json.Unmarshal([]byte(read.Contents[0].Text), &status)
}

// Close ends the server by closing its stdin; one that lingers is killed.
func (f *StdioFace) Close() {
	_ = f.stdin.Close()
	exited := make(chan struct{})
	go func() {
		_ = f.command.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = f.command.Process.Kill()
		<-exited
	}
}
