package main

func add(a int, b int) int {
	return a + b
}

func main() {
	println(add(1, 2))
}
