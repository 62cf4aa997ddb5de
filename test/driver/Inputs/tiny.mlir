module @tiny {
}
