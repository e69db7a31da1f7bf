module github.com/hookctl/hookctl

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/spf13/cobra v1.10.2
	github.com/tidwall/gjson v1.20.2
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/google/go-github/v62 v62.0.0
	github.com/google/go-querystring v1.1.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
)
