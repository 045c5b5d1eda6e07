module example.com/mcp-bridge-host

go 1.19
