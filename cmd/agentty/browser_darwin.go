package main

func browserOpener(url string) (string, []string) { return "open", []string{url} }
