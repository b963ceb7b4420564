package main

func add(a int, b int) int {
	if a == 0 {
		return b
	}
	return a + b
}

func main() {
	println(add(1, 2))
}
